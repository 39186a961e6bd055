"""Ravnholmen: ten people on a small island in the far north of Norway in late January, the last days
of the polar night (town H; who wrote it and from which brief: README.md here).

A narrow sound runs north to south through the middle of the map and is crossed only by the
Footbridge, where Harbour Road on the west side meets Church Road on the east. West of the sound:
three homes (the quay keeper's, the storekeeper's, the fish plant's barracks), the General Store
with its cafe corner, the Fish Plant, the Ferry Quay's waiting room and, along the shore, the
Quayside (the ferry berth and the plant's fish landing). East of it: the church warden's house at
the foot of the hill, the School, the Church, three homes and the Boathouse on the shore. The hill
fills the north-east of the map and is climbed only by the Varden Path, which leads up to the
Varden, the lookout at its top. The event: Halvard Iselvik, a retired mate who keeps to himself,
does something at the lookout at midday on the second day, when the sun first shows again.

    .venv/bin/python -m npc_lab.towns.ravnholmen   # writes npc_lab/towns/ravnholmen/ again
"""

from __future__ import annotations

from pathlib import Path

from npc_lab.towns.plan import Building, Event, Person, Room, write

NAME = "Ravnholmen"
FOLDER = Path(__file__).with_suffix("")
SIZE = (104, 40)
BARRIERS = (
    (49, 0, 54, 39),   # the sound, north to south; the Footbridge crosses it
    (62, 0, 103, 13),  # the hill; the Varden Path climbs it to the lookout
)

BUILDINGS = [
    # The hill, north-east: the path up and the lookout at the top.
    Building("Varden Path", (63, 0), (Room("path", ("snow-packed steps", "rope handrail", "marker poles",
                                                    "wind-scoured rocks"), 3),), depth=14, walled=False),
    Building("Varden", (66, 0), (Room("lookout", ("stone cairn", "flat rock", "wind shelter", "bench",
                                                  "view over the sound"), 14),), depth=5, walled=False),
    # West of the sound, north of Harbour Road: homes, doors on the road.
    Building("Hatlevik house", (1, 8), (Room("Sigrun Hatlevik's room", ("bed", "alarm clock", "ferry timetable"), 5),
                                        Room("Tiril Hatlevik's room", ("bed", "laptop", "concert poster"), 5),
                                        Room("kitchen", ("stove", "coffee pot", "window candles"), 4)),
             residents=("Sigrun Hatlevik", "Tiril Hatlevik")),
    Building("Fagerheim house", (21, 8), (Room("bedroom", ("bed", "knitting basket", "daylight lamp"), 5),
                                          Room("kitchen", ("stove", "waffle iron", "radio"), 4)),
             residents=("Aud Fagerheim",)),
    Building("Plant barracks", (35, 8), (Room("Rasa Stankute's room", ("bed", "phone charger", "photographs of "
                                                                                                 "Klaipeda"), 5),
                                         Room("shared kitchen", ("hot plate", "long table", "drying rack for "
                                                                                            "work clothes"), 5)),
             residents=("Rasa Stankute",)),
    # The road, the bridge over the sound, and the road on the far side.
    Building("Harbour Road", (0, 15), (Room("road", ("street lamps", "snow bank", "kick-sled", "mailbox stand"), 49),),
             depth=2, walled=False),
    Building("Footbridge", (49, 15), (Room("footbridge", ("iron railing", "ice-rimed planks"), 6),), depth=2,
             walled=False),
    Building("Church Road", (55, 15), (Room("road", ("street lamps", "snow bank", "notice board"), 49),), depth=2,
             walled=False),
    # West of the sound, south of Harbour Road: the store, the plant, the quay.
    Building("General Store", (2, 18), (Room("shop", ("counter", "shelves of tins", "freezer chest", "post counter",
                                                      "newspaper rack"), 10),
                                        Room("cafe corner", ("coffee machine", "three tables", "waffle plate",
                                                             "window onto the sound"), 6)), door="north"),
    Building("Fish Plant", (23, 18), (Room("receiving hall", ("weighing scales", "fish tubs", "ice machine"), 6),
                                      Room("filleting hall", ("filleting tables", "conveyor", "cold tap",
                                                              "rows of knives", "shift board"), 8),
                                      Room("break room", ("coffee urn", "lockers", "foreman's desk"), 5))),
    Building("Ferry Quay", (2, 25), (Room("waiting room", ("benches", "ticket machine", "wood stove",
                                                           "ferry timetable", "lost-property shelf"), 8),)),
    Building("Quayside", (0, 32), (Room("ferry berth", ("bollards", "ferry ramp", "floodlight mast",
                                                        "cargo pallets"), 24),
                                   Room("fish landing", ("crane", "fish crates", "moored fishing boat",
                                                         "hose reel"), 20)), depth=4, walled=False),
    # East of the sound: the church warden's house at the foot of the hill, then school and church on the road.
    Building("Sandtorv house", (55, 8), (Room("room", ("bed", "piano", "hymn books", "wedding photograph"), 5),),
             residents=("Bergljot Sandtorv",)),
    Building("School", (56, 18), (Room("classroom", ("blackboard", "seven desks", "map of Troms", "reading corner",
                                                     "daylight lamps"), 9),
                                  Room("cloakroom", ("snowsuits on hooks", "boot rack"), 4)), door="north"),
    Building("Church", (74, 18), (Room("nave", ("pews", "altar", "organ", "votive ship", "bell rope"), 10),
                                  Room("sacristy", ("vestment cupboard", "coffee things", "church keys"), 4)),
             door="north"),
    # East of the sound, homes along the shore, and the boathouse on the water.
    Building("Tveit house", (56, 25), (Room("bedroom", ("double bed", "stack of exercise books"), 5),
                                       Room("Jonas Tveit's room", ("bed", "games console", "ski boots"), 5),
                                       Room("kitchen", ("stove", "kitchen table", "fish tank"), 4)),
             residents=("Kjell Arne Tveit", "Marit Tveit", "Jonas Tveit")),
    Building("Iselvik house", (76, 25), (Room("room", ("bed", "barometer", "shelf of ship's logbooks",
                                                       "wife's photograph"), 5),
                                         Room("kitchen", ("wood stove", "coffee kettle", "radio"), 4)),
             residents=("Halvard Iselvik",)),
    Building("Lekang house", (90, 25), (Room("room", ("bed", "oilskins", "tide table"), 5),
                                        Room("kitchen", ("stove", "bait tubs", "radio"), 4)),
             residents=("Arnfinn Lekang",)),
    Building("Boathouse", (76, 33), (Room("boat shed", ("old rowing boat on trestles", "workbench", "tar pot",
                                                        "sled", "oars"), 10),
                                     Room("net loft", ("coiled longlines", "baiting bench", "net floats"), 5)),
             door="north"),
]

PEOPLE = [
    Person("halvard_iselvik", "Halvard Iselvik", 71, ("taciturn", "exact", "stubborn"),
           "Halvard Iselvik went to sea at sixteen and was first mate on coastal cargo ships for forty years, and he "
           "learned to find a ship's position by the sun before there were satellites to do it. His wife Ragnhild "
           "died at home on Ravnholmen six winters ago while he was at sea, and he came ashore for good the spring "
           "after; he has kept himself to himself since, and most of the island knows him by his nod. He lives alone "
           "in Iselvik house on the church side of the sound and spends his days in the Boathouse, restoring his "
           "father's old rowing boat. Bergljot Sandtorv was Ragnhild's closest friend and the only one who comes "
           "into his kitchen. Arnfinn Lekang keeps his lines in the net loft of the same boathouse, and the two of "
           "them work side by side without many words. He buys his coffee and the newspaper from the morning ferry "
           "at Aud Fagerheim's store every day at ten. He has never spoken to Rasa Stankute and has hardly spoken to "
           "Kjell Arne Tveit.",
           "wakes up at 6 am and listens to the shipping forecast, works in the boathouse from 8 am, crosses the "
           "footbridge for coffee and the newspaper at the store's cafe corner at 10 am, goes up to the Varden "
           "lookout around midday when the sky is clear and there is light enough to see, works in the boathouse "
           "again until 3 pm, and goes to bed at 10 pm",
           "Halvard Iselvik has spent the dark months in the boathouse cutting and polishing a slab of slate, and has "
           "told nobody what it is for.",
           "Iselvik house:room", "Boathouse:boat shed",
           ("Iselvik house:kitchen", "Boathouse:net loft", "Church Road:road", "Footbridge:footbridge",
            "Harbour Road:road", "General Store:cafe corner", "General Store:shop", "Sandtorv house:room",
            "Varden Path:path", "Varden:lookout", "Quayside:ferry berth")),
    Person("sigrun_hatlevik", "Sigrun Hatlevik", 54, ("brisk", "dependable", "curious"),
           "Sigrun Hatlevik is the quay keeper on Ravnholmen for the ferry company: she meets every ferry, takes the "
           "lines, sells the tickets, keeps the waiting room warm and the quay lit, and sees the plant's fish boxes "
           "and the store's goods on and off. Every soul who leaves or comes to the island passes her. She is "
           "divorced and lives with her daughter Tiril Hatlevik in Hatlevik house on the west side. Aud Fagerheim "
           "is her cousin and her oldest friend. Kjell Arne Tveit sends the plant's boxes out through her on the "
           "afternoon ferry, and she is fond of Arnfinn Lekang, who brings her a cod now and then, and tries not to "
           "take sides in their quarrel.",
           "wakes up at 6 am, opens the waiting room at 6:45 am, meets the morning ferry at 7:15 am, the midday "
           "ferry at 12:40 pm and the afternoon ferry at 3:40 pm, goes home at 4:30 pm, comes back to the quay for "
           "the evening ferry at 8:10 pm, and goes to bed at 10:30 pm",
           "Sigrun Hatlevik is worried the ferry company will cut the evening ferry from the timetable in the spring.",
           "Hatlevik house:Sigrun Hatlevik's room", "Ferry Quay:waiting room",
           ("Hatlevik house:kitchen", "Quayside:ferry berth", "Quayside:fish landing", "Harbour Road:road",
            "General Store:shop", "General Store:cafe corner", "Fish Plant:receiving hall", "Footbridge:footbridge",
            "Church Road:road", "Church:nave")),
    Person("tiril_hatlevik", "Tiril Hatlevik", 19, ("restless", "quick", "warm-hearted"),
           "Tiril Hatlevik grew up on Ravnholmen, finished upper secondary school in Tromsø last spring and came "
           "home to save money before she goes back south to study; she misses the city every day of the dark "
           "season. She works in Aud Fagerheim's General Store, mostly behind the cafe corner's counter, and "
           "fetches the store's goods off the midday ferry. She lives with her mother, Sigrun Hatlevik, the quay "
           "keeper. Rasa Stankute is her friend, and they watch series together in the barracks kitchen in the "
           "evenings. She babysat Jonas Tveit when he first came to the island, and he still tells her everything. "
           "As a child she climbed the Varden path every summer.",
           "wakes up at 8 am, works in the store and its cafe corner from 9:30 am to 5 pm, fetches the store's goods "
           "off the midday ferry at 12:40 pm, spends the evening with Rasa Stankute or on her phone, and goes to bed "
           "at midnight",
           "Tiril Hatlevik is counting the weeks until she has saved enough to leave for Tromsø in August.",
           "Hatlevik house:Tiril Hatlevik's room", "General Store:cafe corner",
           ("Hatlevik house:kitchen", "General Store:shop", "Harbour Road:road", "Quayside:ferry berth",
            "Ferry Quay:waiting room", "Plant barracks:shared kitchen", "Footbridge:footbridge", "Church Road:road",
            "Varden Path:path", "Varden:lookout")),
    Person("kjell_arne_tveit", "Kjell Arne Tveit", 49, ("organised", "proud", "short-tempered"),
           "Kjell Arne Tveit is the foreman of the Fish Plant on Ravnholmen and runs its early shift. He came from "
           "Bodø three years ago with his wife Marit Tveit, who teaches at the school, and their son Jonas Tveit, and "
           "they live in Tveit house on the church side, so he crosses the footbridge to the plant in the dark every "
           "morning. Rasa Stankute is the best filleter he has ever had. He sends the plant's boxes out on the "
           "afternoon ferry through Sigrun Hatlevik. He has not spoken to Arnfinn Lekang since the winter before "
           "last, when he turned away a whole day's catch of Arnfinn's as badly bled in front of the plant, and "
           "Arnfinn called him a desk man from Bodø; Arnfinn still lands his fish at the plant, but hands his "
           "landing note to Rasa.",
           "wakes up at 4:45 am, crosses the footbridge to the plant at 5:15 am, runs the early shift from 5:30 am "
           "to 1:30 pm with the break at 9 am, does the paperwork at his desk in the break room until 2:30 pm, "
           "goes home, and goes to bed at 9:30 pm",
           "Kjell Arne Tveit is short of hands on the line until the seasonal workers come for the spring cod.",
           "Tveit house:bedroom", "Fish Plant:filleting hall",
           ("Tveit house:kitchen", "Fish Plant:receiving hall", "Fish Plant:break room", "Church Road:road",
            "Footbridge:footbridge", "Harbour Road:road", "Quayside:fish landing", "General Store:shop",
            "School:classroom")),
    Person("marit_tveit", "Marit Tveit", 45, ("patient", "cheerful", "organised"),
           "Marit Tveit is the teacher of the small school on Ravnholmen: seven pupils, five of whom come over on "
           "the morning ferry from the next island and go home on the afternoon ferry, and her own son Jonas Tveit, "
           "the eldest. She came from Bodø three years ago with her husband Kjell Arne Tveit, the plant foreman. She "
           "still says good morning to Arnfinn Lekang and buys fish off him, which her husband does not like. "
           "Bergljot Sandtorv plays the organ for the school's Christmas service and has become her friend; she "
           "sends the pupils to Aud Fagerheim's cafe corner for waffles on Fridays. Last May she took the whole "
           "school up the Varden path to the lookout.",
           "wakes up at 6:30 am, meets the pupils off the morning ferry at 7:15 am, teaches at the school from 8 am "
           "to 2:30 pm, sees the pupils onto the afternoon ferry at 3:40 pm, marks exercise books at home in the "
           "evening, and goes to bed at 10:30 pm",
           "Marit Tveit is trying to keep seven children cheerful through the last weeks of the dark.",
           "Tveit house:bedroom", "School:classroom",
           ("Tveit house:kitchen", "School:cloakroom", "Church Road:road", "Footbridge:footbridge",
            "Harbour Road:road", "Quayside:ferry berth", "Ferry Quay:waiting room", "General Store:cafe corner",
            "General Store:shop", "Church:nave", "Varden Path:path", "Varden:lookout")),
    Person("jonas_tveit", "Jonas Tveit", 14, ("curious", "talkative", "impatient"),
           "Jonas Tveit is fourteen and the eldest of the seven pupils at the school on Ravnholmen, where his mother "
           "Marit Tveit is the teacher; his father Kjell Arne Tveit is the plant foreman. They came from Bodø three "
           "years ago and he has made the island his own: he sledges down the Varden path, fishes off the quay with "
           "Arnfinn Lekang, whom his father does not speak to, and does his homework at the cafe corner for the "
           "wifi. Tiril Hatlevik babysat him his first winter and he tells her everything. He watches every ferry "
           "come in.",
           "wakes up at 7 am, is at school from 8 am to 2:30 pm, does his homework at the store's cafe corner after "
           "school, watches the afternoon ferry come in at 3:40 pm, and goes to bed at 10:30 pm",
           "Jonas Tveit wants a snow scooter and is trying to talk his father into one.",
           "Tveit house:Jonas Tveit's room", "School:classroom",
           ("Tveit house:kitchen", "School:cloakroom", "Church Road:road", "Footbridge:footbridge",
            "Harbour Road:road", "General Store:cafe corner", "Quayside:ferry berth", "Quayside:fish landing",
            "Varden Path:path", "Varden:lookout")),
    Person("rasa_stankute", "Rasa Stankute", 33, ("diligent", "reserved", "dry-humoured"),
           "Rasa Stankute came from Klaipeda in Lithuania three winters ago to work on the filleting line at the "
           "Fish Plant on Ravnholmen, and is the fastest hand on the early shift. She has a room in the plant's "
           "barracks, where the other rooms stand empty until the seasonal workers come in spring, and sends most "
           "of her pay home to her mother. She learned her Norwegian at the plant. Kjell Arne Tveit is her "
           "foreman; Arnfinn Lekang hands her his landing notes because he will not speak to Kjell Arne; Tiril "
           "Hatlevik is her friend, and Aud Fagerheim keeps rye bread for her. She has hardly been across the "
           "footbridge and has never climbed the hill.",
           "wakes up at 4:45 am, works the early shift at the plant from 5:30 am to 1:30 pm, sleeps for an hour in "
           "the afternoon, buys what she needs at the store before it shuts at 5 pm, spends the evening with Tiril "
           "Hatlevik in the barracks kitchen, and goes to bed at 9:30 pm",
           "Rasa Stankute is homesick and saving for a ticket home at Easter.",
           "Plant barracks:Rasa Stankute's room", "Fish Plant:filleting hall",
           ("Plant barracks:shared kitchen", "Fish Plant:receiving hall", "Fish Plant:break room",
            "Harbour Road:road", "General Store:shop", "General Store:cafe corner", "Quayside:fish landing")),
    Person("aud_fagerheim", "Aud Fagerheim", 62, ("sociable", "shrewd", "generous"),
           "Aud Fagerheim keeps the General Store on Ravnholmen, with the post counter and a cafe corner where the "
           "island drinks its coffee and eats her waffles; the goods come on the midday ferry. She has lived on the "
           "island all her life and hears everything that is said on it. Sigrun Hatlevik, the quay keeper, is her "
           "cousin and her oldest friend, and Sigrun's daughter Tiril Hatlevik works for her. Halvard Iselvik buys "
           "his coffee and newspaper from her every day at ten and says about ten words doing it. She keeps rye "
           "bread for Rasa Stankute. Her knees are bad and she has not been up the hill in years.",
           "wakes up at 7 am, opens the store at 9:30 am, unpacks the goods from the midday ferry in the early "
           "afternoon, shuts the store at 5 pm, and goes to bed at 10 pm",
           "Aud Fagerheim is doing the store's accounts and fears the winter's takings will not cover the heating.",
           "Fagerheim house:bedroom", "General Store:shop",
           ("Fagerheim house:kitchen", "General Store:cafe corner", "Harbour Road:road", "Quayside:ferry berth",
            "Ferry Quay:waiting room", "Hatlevik house:kitchen", "Footbridge:footbridge", "Church Road:road",
            "Church:nave")),
    Person("arnfinn_lekang", "Arnfinn Lekang", 58, ("independent", "gruff", "loyal"),
           "Arnfinn Lekang fishes alone out of Ravnholmen in a small boat, with longlines in the fjord, and lands "
           "his catch at the Fish Plant's landing on the quay. He has not spoken to Kjell Arne Tveit, the foreman, "
           "since the winter before last, when Kjell Arne turned away a whole day's catch of his as badly bled in "
           "front of the plant, and he called him a desk man from Bodø; he hands his landing note to Rasa Stankute "
           "instead. He lives alone in Lekang house on the church side. He keeps his lines in the net loft of the "
           "Boathouse, where Halvard Iselvik works on his father's old boat, and they get on without talking much. "
           "He lets Jonas Tveit fish off his boat at the quay and brings Sigrun Hatlevik a cod now and then. In the "
           "light months he climbs to the Varden to read the weather over the fjord.",
           "wakes up at 5 am, leaves the quay at 6 am and hauls his lines in the fjord under the deck lights, lands "
           "his catch at the plant's fish landing at 11 am, baits lines in the net loft of the boathouse in the "
           "afternoon, and goes to bed at 9 pm",
           "Arnfinn Lekang is waiting for the spring cod and nursing an engine that will not last another season.",
           "Lekang house:room", "Quayside:fish landing",
           ("Lekang house:kitchen", "Boathouse:net loft", "Boathouse:boat shed", "Church Road:road",
            "Footbridge:footbridge", "Harbour Road:road", "Fish Plant:receiving hall", "Quayside:ferry berth",
            "General Store:shop", "Varden Path:path", "Varden:lookout")),
    Person("bergljot_sandtorv", "Bergljot Sandtorv", 68, ("devout", "warm", "talkative"),
           "Bergljot Sandtorv is the church warden and organist of Ravnholmen: she keeps the key, heats the church "
           "before every service, practises on the organ most mornings and tends the churchyard. The priest comes "
           "on the ferry once a month. She is a widow and lives alone in Sandtorv house at the foot of the hill. "
           "She was the closest friend of Ragnhild Iselvik, who died six winters ago, and she is the only one who "
           "goes into Halvard Iselvik's kitchen; she takes him a cake on Sundays. Marit Tveit is her friend; she "
           "drinks coffee with Aud Fagerheim at the cafe corner in the afternoons. Her heart will not take the "
           "climb up the hill behind her house any more.",
           "wakes up at 7 am, heats the church and practises on the organ from 10 am to 1 pm, drinks coffee at the "
           "store's cafe corner at 2 pm, looks in on Halvard Iselvik in the late afternoon, and goes to bed at 10 pm",
           "Bergljot Sandtorv is practising the hymns for the priest's visit at the start of February.",
           "Sandtorv house:room", "Church:nave",
           ("Church:sacristy", "Church Road:road", "School:classroom", "Footbridge:footbridge", "Harbour Road:road",
            "General Store:cafe corner", "General Store:shop", "Iselvik house:kitchen")),
]

EVENT = Event(
    file="first_sun", name="The first shadow at the Varden",
    description="Halvard Iselvik, a retired mate who has kept to himself since he came ashore, decides of his own "
    "accord to set up at the Varden lookout, at midday on the second day, the sundial he has cut from a slab of "
    "slate through the dark months, by the first shadow the returning sun throws on the island: from the lookout the "
    "sun clears the mountains a few days before the town below sees it. Nobody else is told: does word cross the "
    "footbridge, reach the plant's early shift and the schoolroom in the middle of their day, pass from one side of "
    "the quarrel between the foreman and the fisherman to the other, and who climbs the hill path in the short "
    "daylight?",
    start="2026-01-27T07:00:00Z", host="halvard_iselvik",
    text="Tomorrow the sun comes back to Ravnholmen. Down in the town Tverrtinden will hide it for a few days yet, "
    "but from the lookout up at the Varden its rim should lift clear of the mountain a little before twelve and sink "
    "behind it again by half past, before the midday ferry is in. Halvard Iselvik will be up at the lookout from "
    "half past eleven. He will set the sundial he has cut from a slab of slate this winter true by the first shadow "
    "the sun has thrown on the island since November. He has hauled it up the path on a sled and bolted it to the "
    "flat rock by the cairn, and all it lacks is that shadow; whoever climbs up tomorrow before the sun goes again "
    "can stand with him and watch it fall across the stone. He has kept himself to himself since he came ashore, but "
    "this once he means to tell whoever he meets.",
    topic="sundial at the Varden", question="Have you heard about the sundial?",
    place="Varden:lookout", window=("2026-01-28T11:30:00Z", "2026-01-28T12:30:00Z"))


def write_files(folder: Path = FOLDER) -> None:
    write(folder, NAME, SIZE, BUILDINGS, PEOPLE, EVENT, BARRIERS)


if __name__ == "__main__":
    write_files()
