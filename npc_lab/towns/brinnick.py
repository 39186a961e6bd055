"""Brinnick: ten people on a small island around its ferry landing, cut off from the mainland when
the autumn gales come in (town C; who wrote it and from which brief: README.md here).

A tidal inlet, the Pool, runs north to south through the island and is crossed on foot only by the
Causeway: the landing, the quay, the pub-and-shop, the harbour office, the boatyard, the old
lifeboat house and most homes lie on the west side; the lighthouse, the beekeeper's croft, the
heath with her hives, the bothy and the bird hide on the east. The event: Sorcha Gault, who rows
the post across the sound, holds a flotsam auction in the boat hall of the Old Lifeboat House
around midday of the second day.

    .venv/bin/python -m npc_lab.towns.brinnick   # writes npc_lab/towns/brinnick/ again
"""

from __future__ import annotations

from pathlib import Path

from npc_lab.towns.plan import Building, Event, Person, Room, write

NAME = "Brinnick"
FOLDER = Path(__file__).with_suffix("")
SIZE = (90, 40)
BARRIERS = ((48, 0, 50, 39),)  # the Pool, a tidal inlet north to south; the Causeway crosses it

BUILDINGS = [
    # The west side: homes to the north, the pub-and-shop and the harbour in the middle, the water's edge south.
    Building("Tolland house", (2, 2), (Room("bedroom", ("bed", "sea chest"), 4),
                                       Room("kitchen", ("range", "barometer", "table"), 4)),
             residents=("Fergus Tolland",)),
    Building("Strachan house", (15, 2), (Room("bedroom", ("double bed", "wardrobe"), 4),
                                         Room("kitchen", ("stove", "dresser", "table"), 4)),
             residents=("Bel Strachan", "Conn Strachan")),
    Building("Gault cottage", (28, 2), (Room("Ishbel Gault's bedroom", ("bed", "oilskin hook"), 4),
                                        Room("Sorcha Gault's bedroom", ("bed", "desk", "shelf of shells"), 4),
                                        Room("kitchen", ("range", "table", "peat basket"), 4)),
             residents=("Ishbel Gault", "Sorcha Gault")),
    Building("Salt Loaf", (2, 11), (Room("bar", ("bar counter", "beer pumps", "peat fire", "settles"), 7),
                                    Room("shop", ("shop counter", "shelves of tins", "post box", "paraffin can"), 5)),
             door="north"),
    Building("Harbour Office", (20, 11), (Room("office", ("chart table", "VHF set", "logbook", "kettle"), 5),),
             door="north"),
    Building("Corran cottage", (30, 11), (Room("bedroom", ("bed",), 4), Room("kitchen", ("stove", "table"), 4)),
             residents=("Niall Corran",), door="north"),
    Building("Old Lifeboat House", (2, 20), (Room("boat hall", ("empty cradle", "hand winch", "long benches",
                                                               "honours board"), 8),
                                             Room("crew room", ("cold stove", "lockers"), 4)), depth=5),
    Building("Veitch Boatyard", (20, 20), (Room("boat shed", ("half-built skiff", "steam box", "timber rack",
                                                             "workbench"), 8),), depth=5),
    Building("Veitch house", (33, 20), (Room("bedroom", ("bed",), 4), Room("kitchen", ("range", "table"), 4)),
             residents=("Jonas Veitch",)),
    Building("Quay", (2, 31), (Room("quayside", ("tide board", "bollards", "hand crane", "fish boxes"), 10),
                               Room("moorings", ("lobster boats", "creel stacks", "bait tubs"), 8)), walled=False),
    Building("Ferry Landing", (24, 31), (Room("slipway", ("post boat", "ferry shelter", "timetable board",
                                                           "mooring rings"), 9),), walled=False),
    Building("Causeway", (45, 21), (Room("causeway", ("marker poles", "flat stones"), 9),), depth=3, walled=False),
    # The east side.
    Building("Lusk cottage", (56, 2), (Room("bedroom", ("bed", "blackout curtain"), 4),
                                       Room("kitchen", ("stove", "armchair"), 4)),
             residents=("Ewan Lusk",)),
    Building("Brinnick Light", (72, 2), (Room("lamp room", ("great lamp", "watch log", "foghorn lever"), 5),
                                         Room("oil store", ("paraffin drums", "spare mantles"), 4))),
    Building("Mackle croft", (56, 13), (Room("bedroom", ("bed", "photograph on the sill"), 4),
                                        Room("kitchen", ("range", "comb press", "jars"), 5)),
             residents=("Una Mackle",)),
    Building("Heath", (74, 14), (Room("apiary", ("beehives", "smoker", "stone windbreak"), 8),), depth=5,
             walled=False),
    Building("Watch Bothy", (56, 30), (Room("bothy", ("camp bed", "primus stove", "field notebooks"), 5),),
             residents=("Imre Halasz",), door="north"),
    Building("Bird Hide", (74, 30), (Room("hide", ("viewing slot", "bench", "tally board"), 6),), door="north"),
]

PEOPLE = [
    Person("sorcha_gault", "Sorcha Gault", 16, ("restless", "enterprising", "warm"),
           "Sorcha Gault rows the post bag across the sound to the mainland van every morning the weather allows, "
           "and back again with the island's letters, from the slipway at the Ferry Landing. She lives in Gault "
           "cottage with her mother Ishbel Gault, who wants her to stay on the island and with whom she argues about "
           "the mainland school. Fergus Tolland, the harbour master, is her favourite grown-up; she helps Jonas "
           "Veitch in his boat shed on Saturdays and thinks Niall Corran is funnier than her mother allows.",
           "wakes up at 6 am, rows the post from 7 am to 10 am when the sound is calm, and goes to bed at 10 pm",
           "Sorcha Gault has spent the days since the gale began combing the west shore, and has a shed full of "
           "what the sea threw up: glass floats, fish boxes, a ship's lamp, good rope and a crate of tinned "
           "peaches. The post boat's oars are split and the post cannot cross until the wind drops.",
           "Gault cottage:Sorcha Gault's bedroom", "Ferry Landing:slipway",
           ("Gault cottage:kitchen", "Old Lifeboat House:boat hall", "Quay:quayside", "Salt Loaf:shop",
            "Harbour Office:office", "Veitch Boatyard:boat shed")),
    Person("fergus_tolland", "Fergus Tolland", 61, ("orderly", "gruff", "kind-hearted"),
           "Fergus Tolland is the harbour master of Brinnick. Every morning he chalks the day's high and low water "
           "on the tide board at the quay, logs the boats in and out, and talks to the ferry on the radio. Ewan "
           "Lusk, the lighthouse keeper, is his oldest friend and they trade weather over the telephone. He has "
           "no patience with Niall Corran, who moors wherever he likes. Sorcha Gault brings him the mainland "
           "papers, and he is as fond of her as if she were his own.",
           "wakes up at 5:30 am, keeps the harbour office from 6:30 am to 5 pm, and goes to bed at 10 pm",
           "Fergus Tolland is watching the barometer fall and expects the ferry to stop running for days.",
           "Tolland house:bedroom", "Harbour Office:office",
           ("Tolland house:kitchen", "Quay:quayside", "Quay:moorings", "Ferry Landing:slipway",
            "Old Lifeboat House:boat hall", "Salt Loaf:bar", "Causeway:causeway", "Brinnick Light:lamp room")),
    Person("bel_strachan", "Bel Strachan", 52, ("brisk", "generous", "shrewd"),
           "Bel Strachan runs the shop side of the Salt Loaf, the island's one pub and shop, with her husband Conn "
           "Strachan, who keeps the bar. She sells Una Mackle's honey on the counter and gives Ishbel Gault credit "
           "when the lobster money is late. For the season she has let the Watch Bothy on the east side to a "
           "visiting bird man from the mainland, Imre Halasz.",
           "wakes up at 6 am, keeps the shop from 8 am to 6 pm, and goes to bed at 11 pm",
           "Bel Strachan is counting the shelves and wondering how long the flour will last if the ferry stops.",
           "Strachan house:bedroom", "Salt Loaf:shop",
           ("Strachan house:kitchen", "Salt Loaf:bar", "Ferry Landing:slipway", "Quay:quayside", "Causeway:causeway",
            "Watch Bothy:bothy", "Mackle croft:kitchen")),
    Person("conn_strachan", "Conn Strachan", 55, ("jovial", "talkative", "grudging"),
           "Conn Strachan keeps the bar of the Salt Loaf, which his wife Bel Strachan runs as a shop by day. He "
           "knows every story on the island and tells most of them twice. Jonas Veitch has been his friend since "
           "school. He has not spoken to Ewan Lusk since Ewan told the licensing board about his late nights.",
           "wakes up at 9 am, keeps the bar from 12 noon to 11 pm, and goes to bed at midnight",
           "Conn Strachan is worried the beer will run dry before the next ferry gets through.",
           "Strachan house:bedroom", "Salt Loaf:bar",
           ("Strachan house:kitchen", "Salt Loaf:shop", "Quay:quayside", "Veitch Boatyard:boat shed",
            "Ferry Landing:slipway")),
    Person("ewan_lusk", "Ewan Lusk", 64, ("solitary", "dry", "watchful"),
           "Ewan Lusk keeps Brinnick Light on the east headland: he lights the great lamp at dusk, watches it "
           "through the night and sleeps through most of the day. Fergus Tolland is his oldest friend. Una Mackle "
           "leaves him a jar of honey on his step each month. Conn Strachan has held a grudge against him for years, "
           "and he does not much care.",
           "wakes up at 3 pm, keeps watch in the lamp room from 6 pm to 7 am, and goes to bed at 8 am",
           "Ewan Lusk is nursing the lamp's old clockwork through the worst nights of the autumn.",
           "Lusk cottage:bedroom", "Brinnick Light:lamp room",
           ("Lusk cottage:kitchen", "Brinnick Light:oil store", "Causeway:causeway", "Mackle croft:kitchen",
            "Harbour Office:office", "Salt Loaf:shop")),
    Person("ishbel_gault", "Ishbel Gault", 45, ("hardy", "proud", "anxious"),
           "Ishbel Gault fishes for lobster from her own boat, the Morven, going out to her creels off the west "
           "rocks before first light. She is raising her daughter Sorcha Gault alone in Gault cottage and dreads "
           "the day Sorcha leaves for the mainland. She and Niall Corran have quarrelled for two seasons over "
           "whose string of creels is whose. Bel Strachan is her closest friend.",
           "wakes up at 3:30 am, fishes from the moorings from 4:30 am to 12 noon, and goes to bed at 8 pm",
           "Ishbel Gault has her creels stacked ashore for the gale and hates every idle hour of it.",
           "Gault cottage:Ishbel Gault's bedroom", "Quay:moorings",
           ("Gault cottage:kitchen", "Quay:quayside", "Salt Loaf:shop", "Salt Loaf:bar", "Ferry Landing:slipway",
            "Old Lifeboat House:crew room", "Old Lifeboat House:boat hall")),
    Person("niall_corran", "Niall Corran", 36, ("brash", "good-humoured", "careless"),
           "Niall Corran fishes for lobster from his boat, the Tern, leaving the moorings before dawn. He moors "
           "where he pleases, which sets Fergus Tolland against him, and he and Ishbel Gault argue about the "
           "creels off the west rocks. Jonas Veitch is rebuilding the Tern's bow for him, and Niall has not yet "
           "paid him. He keeps his spare gear in the crew room of the old lifeboat station.",
           "wakes up at 3 am, fishes from the moorings from 4 am to 12 noon, and goes to bed at 9 pm",
           "Niall Corran is ashore for the gale and spending too much of it in the bar.",
           "Corran cottage:bedroom", "Quay:moorings",
           ("Corran cottage:kitchen", "Quay:quayside", "Salt Loaf:bar", "Old Lifeboat House:crew room",
            "Old Lifeboat House:boat hall", "Veitch Boatyard:boat shed")),
    Person("jonas_veitch", "Jonas Veitch", 57, ("patient", "exacting", "quiet"),
           "Jonas Veitch builds and mends wooden boats in the boat shed of the Veitch Boatyard, as his father did. "
           "Conn Strachan has been his friend since school. He is rebuilding Niall Corran's bow and waiting to be "
           "paid for it. Sorcha Gault helps him on Saturdays and has good hands. He seasons his larch in the old "
           "lifeboat station.",
           "wakes up at 6:30 am, works in the boat shed from 8 am to 5 pm, and goes to bed at 10 pm",
           "Jonas Veitch is steaming the ribs of a new skiff and cursing the damp.",
           "Veitch house:bedroom", "Veitch Boatyard:boat shed",
           ("Veitch house:kitchen", "Old Lifeboat House:boat hall", "Salt Loaf:bar", "Quay:quayside",
            "Harbour Office:office")),
    Person("una_mackle", "Una Mackle", 72, ("gentle", "sharp-tongued", "devout"),
           "Una Mackle keeps bees on the heath on the east side of Brinnick and lives alone in Mackle croft since "
           "her husband Alasdair was lost at sea eleven winters ago. Bel Strachan sells her honey in the shop, and "
           "she leaves a jar on Ewan Lusk's step each month. She thinks Niall Corran a reckless fool who will go "
           "the way Alasdair went.",
           "wakes up at 6 am, tends her hives on the heath from 9 am to 3 pm, and goes to bed at 9 pm",
           "Una Mackle is strapping down her hives against the gale.",
           "Mackle croft:bedroom", "Heath:apiary",
           ("Mackle croft:kitchen", "Causeway:causeway", "Salt Loaf:shop", "Lusk cottage:kitchen",
            "Brinnick Light:lamp room")),
    Person("imre_halasz", "Imre Halasz", 33, ("curious", "shy", "meticulous"),
           "Imre Halasz is an ornithologist from a mainland university, spending the autumn on Brinnick to count "
           "the migrating birds from the hide on the east shore. It is his first season on the island and he knows "
           "almost nobody; Bel Strachan, who let him the Watch Bothy and sells him his groceries, is the only "
           "islander he has spoken to at any length.",
           "wakes up at 5 am, counts birds in the hide from 6 am to 1 pm, writes up his notes in the afternoon, "
           "and goes to bed at 10 pm",
           "Imre Halasz hopes the gale will drive rare birds onto the island.",
           "Watch Bothy:bothy", "Bird Hide:hide",
           ("Causeway:causeway", "Salt Loaf:shop", "Ferry Landing:slipway", "Heath:apiary")),
]

EVENT = Event(
    file="flotsam_auction", name="Flotsam auction",
    description="Sorcha Gault, who rows the post across the sound, decides to auction off what the gale has "
    "washed ashore, in the boat hall of the old lifeboat station, to pay for new oars for the post boat. Nobody "
    "else is told: does word cross the causeway and reach the night-watch and the dawn boats, and who comes?",
    start="2026-10-14T07:00:00Z", host="sorcha_gault",
    text="A flotsam auction in the boat hall of the Old Lifeboat House, on October 15 between 11 am and 1 pm: "
    "Sorcha Gault is getting it up herself, to sell off everything the gale has thrown onto the shore and buy new "
    "oars for the post boat with the money, and she means to tell everyone she runs into.",
    topic="auction at the Old Lifeboat House", question="Have you heard about a flotsam auction?",
    place="Old Lifeboat House:boat hall", window=("2026-10-15T11:00:00Z", "2026-10-15T13:00:00Z"))


def write_files(folder: Path = FOLDER) -> None:
    write(folder, NAME, SIZE, BUILDINGS, PEOPLE, EVENT, BARRIERS)


if __name__ == "__main__":
    write_files()
