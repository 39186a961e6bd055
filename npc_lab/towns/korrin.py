"""Korrin Junction: a town of ten at a mountain railway junction in winter, whose people work the
railway's shifts round the clock (town B of issue 42; who wrote it and from which brief: README.md
here).

The tracks run west to east across the map and are crossed on foot only at the level crossing: the
station, the depot, the signal box, the platelayers' hut and the boarding house lie north of them,
the bathhouse, the clinic and the homes south. The event: Teodor Marek, the night signalman,
teaches a Morse code lesson in the depot's mess room.

    .venv/bin/python -m npc_lab.towns.korrin   # writes npc_lab/towns/korrin/ again
"""

from __future__ import annotations

from pathlib import Path

from npc_lab.towns.plan import Building, Event, Person, Room, write

NAME = "Korrin Junction"
FOLDER = Path(__file__).with_suffix("")
SIZE = (80, 46)
BARRIERS = ((0, 22, 79, 23),)  # the tracks, west to east; the Level Crossing crosses them
BOARDERS = ("Mirela Dobos", "Piotr Savin", "Anselm Rook", "Lotta Franz")

BUILDINGS = [
    Building("Dobos Boarding House", (2, 2), (*(Room(f"{n}'s room", ("bed", "wardrobe"), 4) for n in BOARDERS),
                                              Room("kitchen", ("range", "larder", "sink"), 5),
                                              Room("dining room", ("long table", "tiled stove", "wireless"), 6)),
             residents=BOARDERS),
    Building("Engine Depot", (40, 2), (Room("engine shed", ("snowplough engine", "shunting locomotive",
                                                          "inspection pit", "coal stage"), 10),
                                       Room("stores", ("parts shelves", "coal bunker"), 4),
                                       Room("mess room", ("stove", "long table", "kettle", "notice board"), 6)),
             depth=5),
    Building("Junction Station", (20, 12), (Room("ticket office", ("ticket window", "ticket rack", "telephone"), 5),
                                            Room("waiting hall", ("benches", "iron stove"), 6))),
    Building("Platelayers' Hut", (46, 13), (Room("hut", ("brazier", "snow brooms", "tool rack"), 5),)),
    Building("Signal Box", (66, 13), (Room("lever room", ("lever frame", "block instruments", "train register",
                                                         "stove"), 5),)),
    Building("Platform", (20, 19), (Room("platform", ("bench", "station clock", "timetable board", "lamp post"),
                                         14),), depth=3, walled=False),
    Building("Level Crossing", (38, 20), (Room("crossing", ("crossing gates", "warning bell"), 5),), depth=6,
             walled=False),
    Building("Bathhouse", (2, 27), (Room("changing room", ("lockers", "benches"), 4),
                                    Room("hot pool", ("pool", "wooden tubs", "steam vent"), 8),
                                    Room("boiler room", ("boiler", "coal heap"), 4)), door="north"),
    Building("Clinic", (24, 27), (Room("waiting room", ("chairs", "stove"), 5),
                                  Room("surgery", ("examination couch", "medicine cabinet", "desk"), 5)),
             door="north"),
    Building("Marek house", (40, 27), (Room("bedroom", ("bed", "blackout blind"), 4),
                                       Room("kitchen", ("stove", "table"), 4)),
             residents=("Teodor Marek",), door="north"),
    Building("Wilk flat", (53, 27), (Room("bedroom", ("bed",), 4), Room("kitchen", ("stove", "telephone"), 4)),
             residents=("Agata Wilk",), door="north"),
    Building("Brekke house", (2, 36), (Room("bedroom", ("bed", "chest"), 4), Room("kitchen", ("range", "table"), 5)),
             residents=("Gunnar Brekke", "Hedda Lund"), door="north"),
    Building("Kranjc rooms", (16, 36), (Room("bedroom", ("bed", "stove"), 4),), residents=("Ivo Kranjc",),
             door="north"),
    Building("Oberg cottage", (24, 36), (Room("bedroom", ("bed", "boot rack"), 4),), residents=("Matthias Oberg",),
             door="north"),
]

PEOPLE = [
    Person("teodor_marek", "Teodor Marek", 46, ("methodical", "stubborn", "lonely"),
           "Teodor Marek works the night turn in the Korrin signal box, alone with the levers and the block bells "
           "from ten at night until six. He took the box over from his father and still keeps the old telegraph "
           "key on the shelf. Gunnar Brekke at the depot has been his friend since they were apprentices; he and "
           "Piotr Savin, who has the turn before his, quarrel over the crumbs and the cold stove Piotr leaves "
           "behind. The nurse Agata Wilk is his neighbour.",
           "wakes up at 2 pm, works in the signal box from 10 pm to 6 am, and goes to bed at 7 am",
           "Teodor Marek worries that when snow brings the telephone wires down, nobody in town can reach the "
           "clinic or the signal box.",
           "Marek house:bedroom", "Signal Box:lever room",
           ("Marek house:kitchen", "Engine Depot:mess room", "Platform:platform", "Level Crossing:crossing",
            "Bathhouse:hot pool", "Clinic:waiting room", "Junction Station:waiting hall")),
    Person("hedda_lund", "Hedda Lund", 41, ("precise", "calm", "dry-humoured"),
           "Hedda Lund works the early turn in the signal box, from six in the morning until two, and takes the box "
           "over from Teodor Marek each dawn along with a mug of his bitter coffee. She is married to Gunnar "
           "Brekke, the depot foreman, and has taken the new ticket clerk Lotta Franz under her wing.",
           "wakes up at 4:30 am, works in the signal box from 6 am to 2 pm, and goes to bed at 9 pm",
           "Hedda Lund is keeping a tally of late trains over the pass to send to the district office.",
           "Brekke house:bedroom", "Signal Box:lever room",
           ("Brekke house:kitchen", "Engine Depot:mess room", "Junction Station:ticket office",
            "Level Crossing:crossing", "Bathhouse:hot pool", "Dobos Boarding House:dining room")),
    Person("piotr_savin", "Piotr Savin", 34, ("sociable", "careless", "quick-witted"),
           "Piotr Savin has the late turn in the signal box, from two in the afternoon until ten at night, and "
           "lodges at Mirela Dobos's boarding house. He plays cards with Anselm Rook most nights before Anselm goes "
           "out, and cannot stand Teodor Marek's complaints about the state he leaves the box in.",
           "wakes up at 10 am, works in the signal box from 2 pm to 10 pm, and goes to bed at 1 am",
           "Piotr Savin is trying to win back the money he lost to Anselm Rook at cards.",
           "Dobos Boarding House:Piotr Savin's room", "Signal Box:lever room",
           ("Dobos Boarding House:dining room", "Engine Depot:mess room", "Bathhouse:hot pool", "Platform:platform",
            "Level Crossing:crossing")),
    Person("gunnar_brekke", "Gunnar Brekke", 53, ("gruff", "loyal", "practical"),
           "Gunnar Brekke is the foreman of the engine depot and keeps the snowplough engine and the little shunting "
           "locomotive alive through the winter. He is married to Hedda Lund. Teodor Marek has been his friend "
           "since they were apprentices, and he lends Matthias Oberg tools more often than he gets them back.",
           "wakes up at 6 am, works in the engine depot from 7 am to 4 pm, and goes to bed at 10 pm",
           "Gunnar Brekke is waiting for a new boiler tube that is stuck somewhere down the line.",
           "Brekke house:bedroom", "Engine Depot:engine shed",
           ("Brekke house:kitchen", "Engine Depot:stores", "Engine Depot:mess room", "Signal Box:lever room",
            "Platelayers' Hut:hut", "Level Crossing:crossing", "Bathhouse:hot pool")),
    Person("anselm_rook", "Anselm Rook", 29, ("cheerful", "reckless", "tireless"),
           "Anselm Rook drives the snowplough engine through the night, clearing the line over the pass, and lodges "
           "at the boarding house. Piotr Savin is his card partner; the nurse Agata Wilk has stitched his hands "
           "twice this winter and scolded him both times.",
           "wakes up at 1 pm, drives the snowplough from 8 pm to 4 am, and goes to bed at 5 am",
           "Anselm Rook is proud of clearing the cutting at the summit faster than anyone before him.",
           "Dobos Boarding House:Anselm Rook's room", "Engine Depot:engine shed",
           ("Dobos Boarding House:dining room", "Engine Depot:mess room", "Bathhouse:hot pool", "Clinic:waiting room",
            "Level Crossing:crossing")),
    Person("mirela_dobos", "Mirela Dobos", 62, ("shrewd", "motherly", "gossipy"),
           "Mirela Dobos keeps the boarding house by the station and cooks for her lodgers Piotr Savin, Anselm Rook "
           "and Lotta Franz; she knows everyone's business before they do. She and Ivo Kranjc have feuded for years "
           "over the hot water she says his boiler steals from her pipes.",
           "wakes up at 5 am, cooks and keeps house in the boarding house from 6 am to 8 pm, and goes to bed at 10 pm",
           "Mirela Dobos is stretching the winter stores until the next supply train gets through.",
           "Dobos Boarding House:Mirela Dobos's room", "Dobos Boarding House:kitchen",
           ("Dobos Boarding House:dining room", "Junction Station:waiting hall", "Platform:platform",
            "Clinic:waiting room", "Bathhouse:hot pool", "Level Crossing:crossing")),
    Person("ivo_kranjc", "Ivo Kranjc", 58, ("solitary", "proud", "methodical"),
           "Ivo Kranjc keeps the bathhouse: he stokes its boiler before dawn and keeps the hot pool clean and warm "
           "for the railwaymen coming off their turns. He quarrels with Mirela Dobos about the water pipes and gets "
           "his coal from Gunnar Brekke's depot stores.",
           "wakes up at 4 am, tends the bathhouse from 5 am to 7 pm, and goes to bed at 9 pm",
           "Ivo Kranjc is patching a leak in the tiles of the hot pool.",
           "Kranjc rooms:bedroom", "Bathhouse:boiler room",
           ("Bathhouse:hot pool", "Bathhouse:changing room", "Engine Depot:stores", "Clinic:waiting room",
            "Level Crossing:crossing")),
    Person("agata_wilk", "Agata Wilk", 45, ("steady", "blunt", "tender"),
           "Agata Wilk is the nurse who runs the junction's clinic, alone since the doctor went down to the valley "
           "for the winter, and she is on call at night. Matthias Oberg is her younger brother. She lives next door "
           "to Teodor Marek and is fond of Mirela Dobos, who feeds her.",
           "wakes up at 7 am, keeps the clinic open from 8 am to 4 pm, and goes to bed at 10 pm unless she is called "
           "out in the night",
           "Agata Wilk is worried that the clinic's telephone goes dead whenever snow brings the line down.",
           "Wilk flat:bedroom", "Clinic:surgery",
           ("Wilk flat:kitchen", "Clinic:waiting room", "Bathhouse:hot pool", "Junction Station:waiting hall",
            "Dobos Boarding House:dining room", "Oberg cottage:bedroom", "Level Crossing:crossing")),
    Person("lotta_franz", "Lotta Franz", 26, ("earnest", "homesick", "observant"),
           "Lotta Franz came up from the city in the autumn to sell tickets at the junction station and lodges at "
           "Mirela Dobos's boarding house. Hedda Lund looks out for her; she finds Piotr Savin's jokes tiresome.",
           "wakes up at 5 am, works in the ticket office from 6 am to 2 pm, and goes to bed at 10 pm",
           "Lotta Franz is writing long letters home that the snowed-in mail train cannot take.",
           "Dobos Boarding House:Lotta Franz's room", "Junction Station:ticket office",
           ("Junction Station:waiting hall", "Platform:platform", "Dobos Boarding House:dining room",
            "Bathhouse:hot pool", "Clinic:waiting room", "Level Crossing:crossing")),
    Person("matthias_oberg", "Matthias Oberg", 39, ("taciturn", "strong", "patient"),
           "Matthias Oberg is the lineman who clears snow and ice from the points and walks the track at the "
           "junction, out in all weathers from before dawn. His sister is the nurse Agata Wilk. He borrows Gunnar "
           "Brekke's tools and forgets to return them.",
           "wakes up at 3 am, works on the points and the track from 4 am to noon, and goes to bed at 7 pm",
           "Matthias Oberg is keeping the east points clear through the worst snow of the winter.",
           "Oberg cottage:bedroom", "Platelayers' Hut:hut",
           ("Level Crossing:crossing", "Platform:platform", "Signal Box:lever room", "Engine Depot:mess room",
            "Bathhouse:hot pool", "Wilk flat:kitchen")),
]

EVENT = Event(
    file="morse_lesson", name="Morse lesson",
    description="Teodor Marek, the night signalman, decides to teach Morse code in the depot's mess room so that "
    "the town can still signal when the snow cuts the telephone line. Nobody else is told: does word pass "
    "between the shifts, and who comes?",
    start="2026-01-20T07:00:00Z", host="teodor_marek",
    text="Teodor Marek wants to teach a Morse code lesson in the mess room of the Engine Depot on January 21 from "
    "3 pm to 5 pm, so that people can signal to each other when the snow brings the telephone line down, and to "
    "ask whoever he meets to come.",
    topic="Morse code lesson at the Engine Depot", question="Have you heard about a Morse code lesson?",
    place="Engine Depot:mess room", window=("2026-01-21T15:00:00Z", "2026-01-21T17:00:00Z"))


def write_files(folder: Path = FOLDER) -> None:
    write(folder, NAME, SIZE, BUILDINGS, PEOPLE, EVENT, BARRIERS)


if __name__ == "__main__":
    write_files()
