"""Hijaltola: ten people in a river-delta village of houses on stilts over the water, in the wet
season (town G; who wrote it and from which brief: README.md here).

The higher bank, the only dry ground, lies along the north of the map: the Khans' homestead and
their paddy. Everything south of it is water. A bamboo gangway leads down from the bank to the
Boardwalk, one long run of planks west to east on piles, and the stilt houses stand in the water on
either side of it with their doors on the planks: the boat shed, the school, the flood-warning
station, the floating shop where the post boat calls, the smoke house, the ferry ghat and five
homes. South of them runs the Back Channel, reached from the Boardwalk only down the dinghy steps;
walking along it stands for poling a dinghy. Three homes are reached only that way (the retired
midwife's house, the teacher's houseboat and the ferry woman's house), and so is Egret Spit, a
mudbank at the channel's eastern reach. The event: Rafi Sheikh, sixteen, lets something go into
the river from Egret Spit on the top of the evening tide on the second day.

    .venv/bin/python -m npc_lab.towns.hijaltola   # writes npc_lab/towns/hijaltola/ again
"""

from __future__ import annotations

from pathlib import Path

from npc_lab.towns.plan import Building, Event, Person, Room, write

NAME = "Hijaltola"
FOLDER = Path(__file__).with_suffix("")
SIZE = (100, 42)
WATER = (0, 9, 99, 41)  # all of the map south of the higher bank; only arenas and doors stand in it

BUILDINGS = [
    # The higher bank: the Khans' homestead and the paddy they are planting.
    Building("Khan homestead", (3, 1), (Room("bedroom", ("rope bed", "tin trunk", "hurricane lamp"), 5),
                                        Room("kitchen", ("mud stove", "rice pots", "duck basket"), 5)),
             residents=("Jobbar Khan", "Rokeya Khan")),
    Building("Khan Paddy", (22, 0), (Room("seedbed", ("bundles of seedlings", "bamboo fence", "scarecrow"), 10),
                                     Room("paddy", ("flooded terraces", "earth dykes", "water channel",
                                                    "bamboo shelter"), 30)), depth=6, walled=False),
    # Down from the bank to the planks: the gangway, with the mooring stake at its foot.
    Building("Bank Landing", (2, 9), (Room("gangway", ("bamboo gangway", "mud steps", "mooring stake",
                                                       "paddy boat"), 4),), depth=11, walled=False),
    # North of the Boardwalk, on piles, doors on the planks.
    Building("Mondal Boat Shed", (8, 14), (Room("shed", ("half-planked hull", "bending fire", "stack of jarul planks",
                                                         "caulking irons", "tar pot"), 10),
                                           Room("slipway", ("log rollers", "hand winch", "hauling rope"), 6))),
    Building("Mondal house", (28, 14), (Room("room", ("cot", "wife's photograph", "prayer mat"), 5),
                                        Room("kitchen", ("clay stove", "water pitcher"), 4)),
             residents=("Anwar Mondal",)),
    Building("School", (41, 14), (Room("classroom", ("blackboard", "floor mats", "teacher's table", "slates",
                                                     "chart of the alphabet"), 10),)),
    Building("Flood Station", (54, 14), (Room("radio room", ("radio set", "log book", "siren switch", "wall clock",
                                                             "kettle"), 7),
                                         Room("store", ("sandbags", "life rings", "spare batteries"), 4))),
    Building("Hossain quarters", (69, 14), (Room("room", ("bed", "mosquito net", "window blanket", "cricket radio"),
                                                 5),),
             residents=("Tarek Hossain",)),
    Building("Ali house", (77, 14), (Room("room", ("bed", "account ledgers"), 5),
                                     Room("kitchen", ("stove", "shelf of jars"), 4)),
             residents=("Motin Ali",)),
    Building("Floating Shop", (90, 14), (Room("shop", ("counter", "sacks of rice and lentils", "kerosene drum",
                                                       "post bag", "phone-credit slate"), 8),)),
    # The planks themselves.
    Building("Boardwalk", (0, 20), (Room("west planks", ("handrail", "drying nets"), 30),
                                    Room("middle planks", ("water gauge post", "bench of split bamboo"), 40),
                                    Room("east planks", ("handrail", "notice board"), 30)), depth=2, walled=False),
    # South of the Boardwalk.
    Building("Sheikh house", (2, 22), (Room("Parul Sheikh's room", ("bed", "sewing machine", "husband's net"), 5),
                                       Room("Rafi Sheikh's room", ("mat", "cast net", "football"), 4),
                                       Room("kitchen", ("stove", "water pitcher", "spice tins"), 4)),
             residents=("Parul Sheikh", "Rafi Sheikh"), door="north"),
    Building("Smoke House", (20, 22), (Room("smoking room", ("smoking racks", "ember trench", "split catfish",
                                                             "salt bins"), 8),
                                       Room("packing room", ("bamboo baskets", "hanging scales", "banana leaves"), 5)),
             door="north"),
    Building("Ferry Ghat", (38, 22), (Room("landing stage", ("ferry boat", "bamboo landing stage", "fare tin",
                                                             "lantern pole"), 12),), walled=False),
    Building("Dinghy Steps", (52, 22), (Room("steps", ("tied dinghies", "bamboo poles", "bailing tin"), 4),),
             depth=8, walled=False),
    # The Back Channel, and what is reached only along it.
    Building("Back Channel", (0, 30), (Room("west reach", ("water hyacinth", "fish trap"), 50),
                                       Room("east reach", ("channel marker", "drowned tree"), 50)), depth=3,
             walled=False),
    Building("Khatun house", (6, 33), (Room("room", ("bed", "box of remedies", "betel tray"), 6),
                                       Room("porch", ("low stool", "rain awning", "visitors' mat"), 4)),
             residents=("Amena Khatun",), door="north"),
    Building("Akter houseboat", (26, 33), (Room("cabin", ("bunk", "pile of copybooks", "school bag"), 6),
                                           Room("deck", ("awning", "cooking stove", "tethered dinghy"), 4)),
             residents=("Shirin Akter",), door="north"),
    Building("Das house", (44, 33), (Room("room", ("bed", "shrine shelf", "oilskin"), 5),
                                     Room("kitchen", ("stove", "rice pot"), 4)),
             residents=("Fulmoti Das",), door="north"),
    Building("Egret Spit", (70, 33), (Room("mudbank", ("reed beds", "driftwood log", "egret roost", "kash grass"),
                                           16),), depth=7, walled=False),
]


def _doors(b: Building) -> list[tuple[int, int]]:
    """The door tiles of a walled building, where plan lays them: mid-room in its front wall."""
    front = b.at[1] + b.depth + 1 if b.door == "south" else b.at[1]
    doors, x = [], b.at[0] + 1
    for room in b.rooms:
        doors.append((x + room.width // 2, front))
        x += room.width + 1
    return doors


def _water(area: tuple[int, int, int, int], buildings: list[Building]) -> tuple[tuple[int, int, int, int], ...]:
    """The water as barrier rectangles, one row at a time with the houses' doors left out, so that
    the stilt houses standing in it open onto the planks and the channel and nowhere else."""
    x0, y0, x1, y1 = area
    doors = {d for b in buildings if b.walled for d in _doors(b)}
    out = []
    for y in range(y0, y1 + 1):
        start = x0
        for x in [*sorted(x for x, dy in doors if dy == y and x0 <= x <= x1), x1 + 1]:
            if start < x:
                out.append((start, y, x - 1, y))
            start = x + 1
    return tuple(out)


BARRIERS = _water(WATER, BUILDINGS)

PEOPLE = [
    Person("rafi_sheikh", "Rafi Sheikh", 16, ("quiet", "patient", "watchful"),
           "Rafi Sheikh is sixteen and left the high school across the channel last year to help his mother, Parul "
           "Sheikh, at the Smoke House of Hijaltola; his father drowned three wet seasons ago. He knows the water "
           "round the village better than anyone but Fulmoti Das, and he poles Amena Khatun, the old midwife who "
           "brought him into the world, wherever she needs to go. In the evenings he sits with Tarek Hossain in the "
           "flood station and listens to the district office on the radio. He hangs about Anwar Mondal's boat shed "
           "when he can. His mother has forbidden him to speak to Jobbar and Rokeya Khan, and he does not.",
           "wakes up at 6 am, works at the smoke house from 7 am to noon, spends the afternoon on the water in the "
           "dinghy with a cast net, sits in the flood station with Tarek Hossain from 8 pm, and goes to bed at 11 pm",
           "Rafi Sheikh wants a boat of his own and saves what Motin Ali pays him for unloading the post boat.",
           "Sheikh house:Rafi Sheikh's room", "Smoke House:smoking room",
           ("Sheikh house:kitchen", "Smoke House:packing room", "Boardwalk:west planks", "Boardwalk:middle planks",
            "Boardwalk:east planks", "Flood Station:radio room", "Floating Shop:shop", "Mondal Boat Shed:slipway",
            "Dinghy Steps:steps", "Back Channel:west reach", "Back Channel:east reach", "Khatun house:porch",
            "Egret Spit:mudbank")),
    Person("parul_sheikh", "Parul Sheikh", 44, ("hard-working", "proud", "unforgiving"),
           "Parul Sheikh runs the Smoke House on the Boardwalk of Hijaltola: she buys the night's catch from the "
           "channel fishermen, splits and salts it and smokes it over a trench of embers, and sells it through Motin "
           "Ali's floating shop and on Fulmoti Das's ferry to the market town. She is a widow; her son Rafi Sheikh "
           "works with her. For twenty years her husband tied his boat to the mooring stake at the foot of the bank "
           "gangway; when he drowned, Jobbar Khan put his paddy boat there and said the stake stood on his land, and "
           "one night the paddy boat came loose and went out on the ebb. The Khans say she untied it. The two "
           "households have not spoken since. Amena Khatun is the only one she lets talk to her about it.",
           "wakes up at 4:30 am, buys the catch at the ferry ghat at 5 am, works in the smoke house from 6 am to 4 "
           "pm, takes her smoked fish along to the floating shop at 5 pm, and goes to bed at 9 pm",
           "Parul Sheikh is short of dry wood for the embers, with every stick in the delta soaked by the rains.",
           "Sheikh house:Parul Sheikh's room", "Smoke House:smoking room",
           ("Sheikh house:kitchen", "Smoke House:packing room", "Ferry Ghat:landing stage", "Boardwalk:west planks",
            "Boardwalk:middle planks", "Boardwalk:east planks", "Floating Shop:shop", "Dinghy Steps:steps",
            "Khatun house:porch")),
    Person("anwar_mondal", "Anwar Mondal", 58, ("skilled", "gruff", "generous"),
           "Anwar Mondal builds boats in the shed at the west end of the Boardwalk of Hijaltola, as his father did, "
           "from planks of jarul wood bent over a fire. He is widowed and lives alone; his daughter married into "
           "the market town. He is building Fulmoti Das a new ferry boat before the old one sinks under her. He "
           "drinks his tea at Motin Ali's floating shop every evening. Jobbar Khan is his oldest friend, and he "
           "built the Khans' paddy boat. He lets Rafi Sheikh watch him work and hand him tools. He has not forgiven "
           "Tarek Hossain for sounding the siren last wet season for a flood that never came, when he dragged a "
           "hull up the slipway in the dark for nothing.",
           "wakes up at 5:30 am, works in the boat shed from 7 am to 5 pm with an hour off at noon, drinks tea at the "
           "floating shop from 5:30 pm to 7 pm, and goes to bed at 10 pm",
           "Anwar Mondal is waiting for the rains to ease so the tar on Fulmoti Das's new boat will set.",
           "Mondal house:room", "Mondal Boat Shed:shed",
           ("Mondal house:kitchen", "Mondal Boat Shed:slipway", "Boardwalk:west planks", "Boardwalk:middle planks",
            "Boardwalk:east planks", "Floating Shop:shop", "Bank Landing:gangway", "Khan homestead:kitchen",
            "Ferry Ghat:landing stage")),
    Person("tarek_hossain", "Tarek Hossain", 36, ("dutiful", "lonely", "precise"),
           "Tarek Hossain keeps the night watch at the flood-warning station of Hijaltola: every hour he reads the "
           "gauge post on the Boardwalk, he calls the district office on the radio at fixed times, and if the water "
           "passes the danger mark he sounds the siren. The water board posted him here from the city two years "
           "ago. He lives alone in Hossain quarters next door and sleeps through the day. Rafi Sheikh sits with him "
           "in the evenings; Motin Ali keeps him a breakfast of puffed rice each morning; Amena Khatun nursed him "
           "through a fever his first winter. Anwar Mondal still grumbles at him for last year's siren. He has "
           "hardly met the others, who are up while he sleeps.",
           "works the night watch at the flood station from 7 pm to 7 am, buys his breakfast at the floating shop at "
           "7:30 am, sleeps from 8 am to 3 pm, wakes up at 3 pm and walks the planks before his watch",
           "Tarek Hossain is watching the river creep up the gauge post after a week of rain upstream.",
           "Hossain quarters:room", "Flood Station:radio room",
           ("Flood Station:store", "Boardwalk:middle planks", "Boardwalk:east planks", "Floating Shop:shop",
            "Dinghy Steps:steps")),
    Person("motin_ali", "Motin Ali", 63, ("talkative", "shrewd", "kind"),
           "Motin Ali keeps the floating shop moored at the east end of the Boardwalk of Hijaltola: rice, lentils, "
           "kerosene, batteries, phone credit, and the post, because the post boat calls at his shop. He sells Parul "
           "Sheikh's smoked fish and the Khans' rice, and takes care never to speak of either household to the "
           "other. Anwar Mondal drinks tea at his counter every evening; Tarek Hossain buys his breakfast there; "
           "Shirin Akter collects the school's letters from him. His wife died in the cyclone year and his sons "
           "work in the city.",
           "wakes up at 5 am, keeps the floating shop from 6:30 am to 8 pm, meets the post boat when it calls at 11 "
           "am on weekdays, and goes to bed at 10 pm",
           "Motin Ali is worried the post boat will stop calling if the river rises much more.",
           "Ali house:room", "Floating Shop:shop",
           ("Ali house:kitchen", "Boardwalk:east planks", "Boardwalk:middle planks", "Ferry Ghat:landing stage",
            "Flood Station:radio room", "Mondal Boat Shed:shed")),
    Person("shirin_akter", "Shirin Akter", 27, ("earnest", "reserved", "determined"),
           "Shirin Akter teaches the small school on the Boardwalk of Hijaltola, which children from the village "
           "and two hamlets up the channel reach by boat. The education office posted her here last year from the "
           "market town. She lives alone on a houseboat moored in the Back Channel and comes in to the school by "
           "dinghy each weekday morning. Rokeya Khan brings her vegetables from the bank; she goes to Amena Khatun "
           "for advice on everything from fevers to parents; she collects the school's letters from Motin Ali; "
           "Fulmoti Das, her neighbour on the channel, takes her across to the market town on Fridays. She has "
           "never spoken to Tarek Hossain, who is asleep whenever she is in the village.",
           "wakes up at 6 am on her houseboat, poles her dinghy in to the school on weekdays at 8:30 am, teaches "
           "from 9 am to 2:30 pm, leaves in the dinghy at 3 pm, marks copybooks on the deck in the evening, and "
           "goes to bed at 10 pm",
           "Shirin Akter is afraid the school will close for the floods before the children sit their exams.",
           "Akter houseboat:cabin", "School:classroom",
           ("Akter houseboat:deck", "Back Channel:west reach", "Dinghy Steps:steps", "Boardwalk:middle planks",
            "Boardwalk:east planks", "Floating Shop:shop", "Khatun house:porch", "Bank Landing:gangway")),
    Person("jobbar_khan", "Jobbar Khan", 56, ("stubborn", "steady", "blunt"),
           "Jobbar Khan farms rice with his wife Rokeya Khan on the higher bank above Hijaltola, the only land in "
           "the village that stays dry. He says the mooring stake at the foot of the bank gangway stands on his land, "
           "and three wet seasons ago he put his paddy boat there after Parul Sheikh's husband drowned; he is sure "
           "she cast it loose. He and Rokeya have not spoken to Parul or her son Rafi since. Anwar Mondal, who built "
           "his boat, is his oldest friend. In the dry months he cuts kash grass for thatch on Egret Spit. He sells "
           "his rice through Motin Ali.",
           "wakes up at 5 am, works in the paddy from 6 am to 1 pm, rests through the afternoon downpour, walks the "
           "field dykes again from 4 pm to 6 pm, and goes to bed at 9 pm",
           "Jobbar Khan is transplanting the last of the seedlings into the flooded paddy before the water climbs "
           "too high.",
           "Khan homestead:bedroom", "Khan Paddy:paddy",
           ("Khan homestead:kitchen", "Khan Paddy:seedbed", "Bank Landing:gangway", "Boardwalk:west planks",
            "Mondal Boat Shed:shed", "Floating Shop:shop", "Egret Spit:mudbank")),
    Person("rokeya_khan", "Rokeya Khan", 51, ("warm", "sharp-tongued", "capable"),
           "Rokeya Khan farms rice with her husband Jobbar Khan on the higher bank above Hijaltola, raises the "
           "seedlings and keeps a flock of ducks. She takes vegetables down to Shirin Akter, the teacher, whom she "
           "treats like a daughter. She will not speak to Parul Sheikh or her son Rafi, not since the paddy boat "
           "went out on the ebb from the mooring stake three wet seasons ago, though she misses the smoked fish. "
           "Amena Khatun delivered both her children, who now work in the city, and she still takes every worry to "
           "her. She buys kerosene and lentils from Motin Ali.",
           "wakes up at 5 am, works the seedbed and the paddy from 6 am to noon, cooks and sees to the ducks in the "
           "afternoon, goes down the gangway to the floating shop at 5 pm, and goes to bed at 9:30 pm",
           "Rokeya Khan has lost three ducklings to a kite and is keeping the rest penned.",
           "Khan homestead:bedroom", "Khan Paddy:seedbed",
           ("Khan homestead:kitchen", "Khan Paddy:paddy", "Bank Landing:gangway", "Boardwalk:west planks",
            "Boardwalk:middle planks", "Boardwalk:east planks", "Floating Shop:shop", "School:classroom")),
    Person("amena_khatun", "Amena Khatun", 76, ("wise", "dry-witted", "tireless"),
           "Amena Khatun was the midwife of Hijaltola for fifty years and has delivered most of the village, Rafi "
           "Sheikh among them and both of Rokeya Khan's children. She has retired, but everyone still poles over "
           "to her house in the backwater, which no plank reaches, with fevers, babies, letters and quarrels. "
           "She talks to both sides of the quarrel between the Sheikhs and the Khans and has tried for three years "
           "to end it. Rafi Sheikh takes her across in his dinghy; Fulmoti Das is her neighbour on the channel; "
           "Shirin Akter comes to her for advice; she nursed Tarek Hossain through a fever. From her porch she can "
           "see the egrets come in to Egret Spit at dusk.",
           "wakes up at 5 am, sits on her porch from 7 am and sees whoever poles over to consult her, naps after the "
           "midday meal, sits out again from 3 pm until dark, and goes to bed at 9 pm",
           "Amena Khatun's knees will not let her climb into a dinghy alone any more, and she resents it.",
           "Khatun house:room", "Khatun house:porch",
           ("Back Channel:west reach", "Back Channel:east reach", "Dinghy Steps:steps", "Boardwalk:west planks",
            "Sheikh house:kitchen", "Khan homestead:kitchen", "Akter houseboat:deck", "Das house:room",
            "Egret Spit:mudbank")),
    Person("fulmoti_das", "Fulmoti Das", 48, ("brisk", "fearless", "cheerful"),
           "Fulmoti Das runs the ferry of Hijaltola across the wide channel to the market town, as her mother did. "
           "She lives in a house on piles in the Back Channel, which no plank reaches, next to Amena Khatun and "
           "Shirin Akter's houseboat. She carries Parul Sheikh's smoked fish to market and the Khans' rice sacks, "
           "takes Shirin Akter over on Fridays, and knows every current and shoal of the delta. Anwar Mondal is "
           "building her a new boat, and she calls at his shed every day to see how it is coming on.",
           "wakes up at 4:30 am, runs the ferry from the ferry ghat from 6 am to 10:30 am, takes the late-morning "
           "boat across and is away in the market town until she brings it back at 3 pm, waits at the ghat for "
           "passengers until 6 pm, and goes to bed at 9 pm",
           "Fulmoti Das is bailing her old ferry boat twice a crossing and counting the days to the new one.",
           "Das house:room", "Ferry Ghat:landing stage",
           ("Das house:kitchen", "Back Channel:west reach", "Back Channel:east reach", "Dinghy Steps:steps",
            "Boardwalk:middle planks", "Boardwalk:west planks", "Mondal Boat Shed:shed", "Floating Shop:shop",
            "Khatun house:porch", "Egret Spit:mudbank")),
]

EVENT = Event(
    file="turtle_tide", name="Hatchlings on the spring tide",
    description="Rafi Sheikh, sixteen, decides of his own accord to let go into the river the young river turtles "
    "he has raised in a tub behind the Smoke House since he dug their eggs out of the crumbling bank of Egret Spit, "
    "on the top of the evening's spring tide, when the water stands up in the reeds of the mudbank. Nobody else is "
    "told: does word travel along the Boardwalk and over the water to the houses only a dinghy reaches, to the "
    "radio operator who sleeps by day, the teacher and the ferry woman who are gone for part of it, and across the "
    "quarrel into the household that has not spoken to his for three years, and who poles out to the spit at dusk?",
    start="2026-08-11T07:00:00Z", host="rafi_sheikh",
    text="The highest tide of the month comes in on the 12th, and from 17:00 to 19:00 it stands up in the reeds at "
    "the edge of the mudbank on Egret Spit, deep enough for something small to swim straight from open water into "
    "cover. That is the only time Rafi Sheikh can let go the eleven young river turtles he has been keeping in a "
    "tin tub behind the Smoke House since they hatched: he dug the eggs out of the spit's crumbling bank before the "
    "rains, when the river was eating it away, and has fed the hatchlings on snails ever since, and putting them back "
    "is his own plan. After 19:00 the water drains off the mud and leaves it bare for the kites and herons, and no "
    "tide that high comes again for a fortnight, by when they will have outgrown the tub. Whoever wants to see them "
    "go into the river has to be out on Egret Spit in those two hours: once they are in the reeds, nobody will see "
    "them again.",
    topic="turtle hatchling at Egret Spit", question="Have you heard about the turtle hatchlings?",
    place="Egret Spit:mudbank", window=("2026-08-12T17:00:00Z", "2026-08-12T19:00:00Z"))


def write_files(folder: Path = FOLDER) -> None:
    write(folder, NAME, SIZE, BUILDINGS, PEOPLE, EVENT, BARRIERS)


if __name__ == "__main__":
    write_files()
