"""Tarnbeck: a hill village of nine around a working water mill and the one ford over its river,
far from any city (town A of issue 42; who wrote it and from which brief: README.md here).

The river runs north to south through the map and can be crossed only at the ford: the mill, the
shop, the old schoolhouse and the repair shed lie on the west bank, the two farms and the
shepherd's cottage on the east, the sheepfold on High Fell far out at the east edge. The event:
Ilsa Merrow, who mends bicycles and radios, holds a shortwave evening in the mill's loft.

    .venv/bin/python -m npc_lab.towns.tarnbeck   # writes npc_lab/towns/tarnbeck/ again
"""

from __future__ import annotations

from pathlib import Path

from npc_lab.towns.plan import Building, Event, Person, Room, write

NAME = "Tarnbeck"
FOLDER = Path(__file__).with_suffix("")
SIZE = (92, 44)
BARRIERS = ((44, 0, 46, 43),)  # the river, north to south; the Ford crosses it

BUILDINGS = [
    Building("Crane cottage", (2, 2), (Room("bedroom", ("bed", "washstand"), 4),
                                       Room("kitchen", ("range", "dresser"), 4)),
             residents=("Bettany Crane",)),
    Building("Quill cottage", (15, 2), (Room("bedroom", ("bed",), 4),
                                        Room("parlour", ("armchair", "bookcase", "card table"), 5)),
             residents=("Margery Quill",)),
    Building("Merrow cottage", (29, 2), (Room("bedroom", ("bed", "shelf of manuals"), 4),
                                         Room("kitchen", ("stove",), 4)),
             residents=("Ilsa Merrow",)),
    Building("Post Shop", (2, 11), (Room("shop", ("counter", "post scales", "letter rack", "shelves of tins"), 6),
                                    Room("sorting room", ("mail sacks", "sorting table"), 4)), door="north"),
    Building("Old Schoolhouse", (17, 11), (Room("reading room", ("bookshelves", "long table", "stove"), 6),),
             door="north"),
    Building("Repair Shed", (27, 11), (Room("workshop", ("bicycle stand", "soldering bench", "parts drawers",
                                                          "spare wheels"), 6),), door="north"),
    Building("Penhale house", (14, 20), (Room("bedroom", ("bed",), 4), Room("kitchen", ("range", "table"), 4)),
             residents=("Aldous Penhale",), door="north"),
    Building("Tarnbeck Mill", (28, 20), (Room("wheel room", ("millstones", "hopper", "sack hoist"), 5),
                                         Room("loft", ("grain bins", "trestle table", "dormer window", "benches"), 7)),
             depth=5, door="north"),
    Building("Ford", (35, 30), (Room("riverbank", ("bench", "willow", "washing stones"), 6),
                                Room("crossing", ("stepping stones", "depth post"), 8)), walled=False),
    Building("Low Farm", (50, 3), (Room("bedroom", ("bed",), 4), Room("kitchen", ("range", "scrubbed table"), 5),
                                   Room("dairy", ("churn", "cheese press"), 4),
                                   Room("byre", ("milking stalls", "hay rack", "calving pen"), 6)),
             residents=("Jory Hebblethwaite", "Nell Hebblethwaite")),
    Building("High Farm", (50, 14), (Room("Silas Pengelly's bedroom", ("bed",), 4),
                                     Room("Owain Pengelly's bedroom", ("bed", "radio"), 4),
                                     Room("kitchen", ("range", "table"), 5),
                                     Room("barn", ("tractor", "grain sacks", "workbench"), 7)),
             residents=("Silas Pengelly", "Owain Pengelly")),
    Building("Rudd cottage", (52, 28), (Room("bedroom", ("bed", "dog basket"), 4),), residents=("Tam Rudd",),
             door="north"),
    Building("High Fell", (78, 34), (Room("sheepfold", ("stone fold", "water trough", "shepherd's hut"), 8),),
             depth=6, walled=False),
]

PEOPLE = [
    Person("ilsa_merrow", "Ilsa Merrow", 24, ("curious", "stubborn", "quick-handed"),
           "Ilsa Merrow mends bicycles and radios in the Repair Shed next to the old schoolhouse; people bring "
           "her whatever squeaks, rattles or has gone quiet. Margery Quill taught her to read and still lends "
           "her books. Tam Rudd brings her the broken things he finds on the fell, and Owain Pengelly spends "
           "more time in her shed than his uncle Silas Pengelly would like.",
           "wakes up at 7 am, works in the Repair Shed from 9 am to 6 pm, and goes to bed at 11 pm",
           "Ilsa Merrow has just brought back to life an old valve receiver she found in the loft of the mill.",
           "Merrow cottage:bedroom", "Repair Shed:workshop",
           ("Post Shop:shop", "Ford:crossing", "Ford:riverbank", "Tarnbeck Mill:wheel room", "Tarnbeck Mill:loft",
            "Old Schoolhouse:reading room", "Low Farm:kitchen")),
    Person("aldous_penhale", "Aldous Penhale", 61, ("patient", "proud", "dry"),
           "Aldous Penhale keeps Tarnbeck Mill as his father did: he grinds the farms' oats and barley and knows "
           "every mood of the river. Margery Quill is his oldest friend, and they argue over the crossword in her "
           "parlour. He and Silas Pengelly have not spoken civilly since the dry summer when the mill race took the "
           "water Silas wanted for his top field.",
           "wakes up at 5 am, works the mill from 6 am to 3 pm, and goes to bed at 9 pm",
           "Aldous Penhale fears the oak paddles of the mill wheel will not last another winter.",
           "Penhale house:bedroom", "Tarnbeck Mill:wheel room",
           ("Tarnbeck Mill:loft", "Penhale house:kitchen", "Post Shop:shop", "Ford:crossing", "Quill cottage:parlour",
            "Old Schoolhouse:reading room")),
    Person("bettany_crane", "Bettany Crane", 49, ("sharp", "talkative", "exact"),
           "Bettany Crane runs the village shop, which is also the post office: every letter, parcel and rumour in "
           "Tarnbeck passes over her counter. Nell Hebblethwaite is her cousin and calls in most days. She has "
           "never forgiven Silas Pengelly for the account he ran up at the shop and then called a favour.",
           "wakes up at 6 am, keeps the shop open from 8 am to 5 pm, and goes to bed at 10 pm",
           "Bettany Crane is waiting for the post van, held up by the washed-out road below the pass.",
           "Crane cottage:bedroom", "Post Shop:shop",
           ("Crane cottage:kitchen", "Post Shop:sorting room", "Ford:crossing", "Tarnbeck Mill:wheel room",
            "Low Farm:kitchen", "Repair Shed:workshop")),
    Person("margery_quill", "Margery Quill", 74, ("wry", "kind", "exacting"),
           "Margery Quill taught every child in Tarnbeck to read until the schoolhouse closed; now she keeps its "
           "front room open as a reading room. She taught Ilsa Merrow and Owain Pengelly and is proud of them "
           "both. Aldous Penhale is her oldest friend, though he cheats at the crossword.",
           "wakes up at 7 am, opens the reading room from 10 am to 4 pm, and goes to bed at 10 pm",
           "Margery Quill is writing a history of the valley from the old parish registers.",
           "Quill cottage:bedroom", "Old Schoolhouse:reading room",
           ("Quill cottage:parlour", "Post Shop:shop", "Ford:riverbank", "Repair Shed:workshop",
            "Tarnbeck Mill:wheel room")),
    Person("tam_rudd", "Tam Rudd", 43, ("quiet", "weathered", "self-reliant"),
           "Tam Rudd runs the valley's sheep on High Fell and is seldom in the village except to sleep and buy "
           "tobacco; he says more to his two dogs than to people. He brings Ilsa Merrow the broken things he "
           "finds up there, and Jory Hebblethwaite gives him a hand at lambing.",
           "wakes up at 4 am, is up on High Fell with the flock from 5 am to 7 pm, and goes to bed at 9 pm",
           "Tam Rudd is counting lambs after a late snow and has lost two ewes on the crags.",
           "Rudd cottage:bedroom", "High Fell:sheepfold",
           ("Post Shop:shop", "Ford:crossing", "Repair Shed:workshop", "Low Farm:byre")),
    Person("jory_hebblethwaite", "Jory Hebblethwaite", 52, ("steady", "generous", "slow to anger"),
           "Jory Hebblethwaite farms Low Farm above the ford with his wife Nell Hebblethwaite; they milk twelve cows "
           "and grow oats for the mill. He helps Tam Rudd at lambing and gets on with everyone, even Silas "
           "Pengelly.",
           "wakes up at 5 am, works on the farm from 5:30 am to 6 pm, and goes to bed at 9 pm",
           "Jory Hebblethwaite is mending the byre roof before the heifers calve.",
           "Low Farm:bedroom", "Low Farm:byre",
           ("Low Farm:kitchen", "Low Farm:dairy", "Ford:crossing", "Tarnbeck Mill:wheel room", "Tarnbeck Mill:loft",
            "Post Shop:shop", "High Fell:sheepfold")),
    Person("nell_hebblethwaite", "Nell Hebblethwaite", 50, ("brisk", "warm", "nosy"),
           "Nell Hebblethwaite makes the butter and cheese of Low Farm, which she farms with her husband Jory "
           "Hebblethwaite, and sells them through the shop of her cousin Bettany Crane. She thinks Ilsa Merrow "
           "works too hard and feeds her whenever she can.",
           "wakes up at 5 am, works in the dairy and the farm kitchen from 6 am to 5 pm, and goes to bed at 9:30 pm",
           "Nell Hebblethwaite is trying a new cheese with the spring milk.",
           "Low Farm:bedroom", "Low Farm:dairy",
           ("Low Farm:kitchen", "Low Farm:byre", "Post Shop:shop", "Ford:crossing", "Ford:riverbank",
            "Repair Shed:workshop")),
    Person("silas_pengelly", "Silas Pengelly", 66, ("proud", "blunt", "hard-working"),
           "Silas Pengelly farms High Farm on the east slope with his nephew Owain Pengelly, who came to him when "
           "his parents died. He bears a grudge against Aldous Penhale over the river water, and another against "
           "Bettany Crane, who keeps bringing up an old account. He thinks Ilsa Merrow's shed distracts Owain "
           "from his work.",
           "wakes up at 5 am, works his fields and barn from 6 am to 6 pm, and goes to bed at 9 pm",
           "Silas Pengelly is trying to get the old tractor running before the ploughing.",
           "High Farm:Silas Pengelly's bedroom", "High Farm:barn",
           ("High Farm:kitchen", "Tarnbeck Mill:wheel room", "Tarnbeck Mill:loft", "Ford:crossing", "Post Shop:shop")),
    Person("owain_pengelly", "Owain Pengelly", 19, ("restless", "eager", "shy"),
           "Owain Pengelly works High Farm for his uncle Silas Pengelly but would rather be anywhere else; his "
           "spare hours go to Ilsa Merrow's Repair Shed, where she is teaching him to solder. Margery Quill "
           "taught him at the schoolhouse and still lends him books about engines.",
           "wakes up at 6 am, works at High Farm from 7 am to 5 pm, and goes to bed at 11 pm",
           "Owain Pengelly is saving up for a motorbike of his own.",
           "High Farm:Owain Pengelly's bedroom", "High Farm:barn",
           ("High Farm:kitchen", "Repair Shed:workshop", "Post Shop:shop", "Ford:crossing", "Tarnbeck Mill:loft",
            "Old Schoolhouse:reading room")),
]

EVENT = Event(
    file="shortwave_evening", name="Shortwave evening",
    description="Ilsa Merrow, who mends radios, decides to hold a shortwave evening in the loft of the mill, to "
    "listen together to far-off stations. Nobody else is told: does word spread across the ford, and who climbs "
    "up to the loft?",
    start="2026-04-15T07:00:00Z", host="ilsa_merrow",
    text="Ilsa Merrow wants to hold a shortwave evening in the loft of Tarnbeck Mill on April 16 from 7 pm to 9 pm, "
    "so that people can hear far-off stations on the receiver she has rebuilt, and to ask everyone she meets to "
    "come.",
    topic="shortwave at Tarnbeck Mill", question="Have you heard about a shortwave evening?",
    place="Tarnbeck Mill:loft", window=("2026-04-16T19:00:00Z", "2026-04-16T21:00:00Z"))


def write_files(folder: Path = FOLDER) -> None:
    write(folder, NAME, SIZE, BUILDINGS, PEOPLE, EVENT, BARRIERS)


if __name__ == "__main__":
    write_files()
