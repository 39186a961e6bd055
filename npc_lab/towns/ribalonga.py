"""Ribalonga: eleven people in a vineyard hamlet on the steep terraced slopes of a river valley in early
October, during the grape harvest (town I; who wrote it and from which brief: README.md here).

The map climbs from the river (south) to the top of the slope (north) in three shelves, each cut off
from the next by a steep bank. On top: the Seixas Terraces, the Chapel with the priest's beehives in
the Chapel Garden, and the Presbytery, along the Terrace Path. The Switchback, the track the tractor
takes, is the only way down the upper bank to the village: the Seixas house, the Press House (press
hall, cellar, and the pickers' bunk room over the press), the Little Square, the Tractor Shed and the
Canelas house north of the Village Lane; the Ferraz Cooperage and house and the Amaral house south of
it. The Landing Steps are the only way down the lower bank to the river shelf: the Quintas house, the
Landing Cafe, the River Landing where the boat calls, and the Riverside Path. East of the landing a
rocky spur comes down to the water, and only the Mill Path along its foot leads past the Old Mill, a
ruin, to Mill Cove, a gravel beach. The event: Duarte Quintas, the teenager who helps at the cafe,
puts something of his own into the river at Mill Cove in the late morning of the second day.

    .venv/bin/python -m npc_lab.towns.ribalonga   # writes npc_lab/towns/ribalonga/ again
"""

from __future__ import annotations

from pathlib import Path

from npc_lab.towns.plan import Building, Event, Person, Room, write

NAME = "Ribalonga"
FOLDER = Path(__file__).with_suffix("")
SIZE = (100, 48)
BARRIERS = (
    (0, 11, 99, 16),   # the upper bank; the Switchback climbs it
    (0, 31, 99, 36),   # the lower bank; the Landing Steps go down it
    (62, 37, 99, 42),  # the rocky spur east of the landing; the Mill Path runs along its foot
    (0, 45, 99, 47),   # the river; the landing's jetty and the cove's gravel reach into it
)

BUILDINGS = [
    # The top of the slope: the terraces, the chapel and its bees, the priest's house, the path along them.
    Building("Seixas Terraces", (1, 1), (Room("west terraces", ("rows of vines", "dry-stone walls", "stacked crates",
                                                                "stone steps", "water barrel"), 26),
                                         Room("east terraces", ("rows of vines", "dry-stone walls", "picking shears",
                                                                "fig tree", "crate sled"), 22)),
             depth=6, walled=False),
    Building("Chapel", (56, 0), (Room("nave", ("altar", "pews", "statue of the patron saint", "bell rope",
                                               "candle stand"), 8),
                                 Room("sacristy", ("vestment chest", "chapel keys", "wine cruets"), 4))),
    Building("Chapel Garden", (72, 0), (Room("hives", ("row of beehives", "smoker", "veil and gloves",
                                                       "lavender bushes", "stone bench"), 12),), depth=5,
             walled=False),
    Building("Presbytery", (86, 0), (Room("room", ("bed", "breviary", "honey jars", "crucifix"), 5),
                                      Room("kitchen", ("stove", "kitchen table", "radio"), 4)),
             residents=("Hilario Lemos",)),
    Building("Terrace Path", (0, 8), (Room("path", ("wayside shrine", "cypress trees", "view over the valley"), 100),),
             depth=2, walled=False),
    # Down the upper bank: the tractor's track.
    Building("Switchback", (60, 10), (Room("track", ("hairpin bends", "crash barrier", "tyre ruts",
                                                     "passing place"), 4),), depth=13, walled=False),
    # The village shelf, north of the lane.
    Building("Seixas house", (2, 17), (Room("bedroom", ("double bed", "wedding photograph", "wardrobe"), 5),
                                       Room("Tiago Seixas's room", ("bed", "motorbike helmet", "laptop"), 5),
                                       Room("kitchen", ("wood stove", "long table", "pots of stew"), 5)),
             residents=("Armando Seixas", "Gracinda Seixas", "Tiago Seixas")),
    Building("Press House", (23, 17), (Room("press hall", ("weighing scale", "press book", "destemmer",
                                                           "granite treading tank", "basket press"), 9),
                                       Room("cellar", ("big oak vat", "rows of barrels", "fermenting tanks",
                                                       "hose reel"), 7),
                                       Room("bunk room", ("bunk beds", "lockers", "washbasin", "clothes line"), 6))),
    Building("Little Square", (50, 18), (Room("square", ("stone fountain", "lime tree", "bench", "notice board"), 9),),
             depth=5, walled=False),
    Building("Tractor Shed", (65, 17), (Room("shed", ("small tractor", "trailer", "diesel drum", "spare tyres"), 7),)),
    Building("Canelas house", (76, 17), (Room("room", ("bed", "work boots", "calendar"), 5),
                                         Room("kitchen", ("gas stove", "coffee pot", "radio"), 4)),
             residents=("Lurdes Canelas",)),
    Building("Village Lane", (0, 23), (Room("lane", ("cobbles", "vine arbour", "street lamps", "stone trough"), 100),),
             depth=2, walled=False),
    # The village shelf, south of the lane.
    Building("Ferraz Cooperage", (2, 25), (Room("workshop", ("workbench", "hoop driver", "barrels under repair",
                                                             "cresset", "adze"), 9),
                                           Room("stave store", ("oak staves", "iron hoops", "reed bundles"), 5)),
             door="north"),
    Building("Ferraz house", (21, 25), (Room("bedroom", ("bed", "wife's portrait", "alarm clock"), 5),
                                        Room("kitchen", ("stove", "fishing rods", "domino box"), 4)),
             residents=("Abilio Ferraz",), door="north"),
    Building("Amaral house", (35, 25), (Room("sitting room", ("armchair", "bookshelves", "old school bell",
                                                              "knitting basket"), 5),
                                        Room("bedroom", ("bed", "bedside lamp"), 5)),
             residents=("Celeste Amaral",), door="north"),
    # Down the lower bank to the river.
    Building("Landing Steps", (57, 25), (Room("steps", ("stone steps", "iron handrail", "geraniums in tins"), 3),),
             depth=18, walled=False),
    # The river shelf.
    Building("Quintas house", (20, 37), (Room("Rosa Quintas's room", ("bed", "sewing basket", "holy picture"), 5),
                                         Room("Duarte Quintas's room", ("bed", "speaker", "sketchbook"), 5),
                                         Room("kitchen", ("stove", "table", "fruit bowl"), 4)),
             residents=("Rosa Quintas", "Duarte Quintas")),
    Building("Landing Cafe", (39, 37), (Room("cafe", ("counter", "espresso machine", "bread basket", "four tables",
                                                      "boat timetable"), 9),
                                        Room("kitchen", ("stove", "fridge", "stack of plates"), 4))),
    Building("Riverside Path", (0, 43), (Room("path", ("plane trees", "river wall", "benches"), 50),), depth=2,
             walled=False),
    Building("River Landing", (50, 43), (Room("landing", ("jetty", "mooring posts", "life ring", "waiting bench"), 12),),
             depth=4, walled=False),
    Building("Mill Path", (62, 43), (Room("path", ("rock ledge", "brambles", "rusty railing"), 16),), depth=2,
             walled=False),
    Building("Old Mill", (78, 39), (Room("ruin", ("roofless walls", "broken millstone", "mill race",
                                                  "fig sapling"), 7),), depth=6, walled=False),
    Building("Mill Cove", (85, 40), (Room("gravel beach", ("willow snag", "flat stones", "driftwood pile",
                                                          "old mooring ring", "tarpaulin"), 13),), depth=6,
             walled=False),
]

PEOPLE = [
    Person("armando_seixas", "Armando Seixas", 64, ("proud", "careful with money", "hard-working"),
           "Armando Seixas owns the biggest terraces in Ribalonga, the vines his grandfather walled up the slope above "
           "the village, and the Press House, where the whole hamlet's grapes are pressed. He is married to Gracinda "
           "Seixas, who keeps the press book, and their son Tiago Seixas runs the picking on the terraces now that "
           "Armando's hip will not take the stone steps. This harvest Tiago hired two pickers through an agency, "
           "Bishal Thapa and Vasile Rusu, who sleep in the bunk room over the press; Armando has said little more than "
           "good morning to them. Lurdes Canelas brings his crates down the switchback on her tractor, and he trusts "
           "her like family. He and Abilio Ferraz, the cooper, have been at odds for three years over money: Abilio "
           "rebuilt the big oak vat in the cellar and re-hooped sixty barrels, and Armando paid two thirds of the bill, "
           "saying the staves were not the oak they had agreed on; Abilio says he is still owed three thousand eight "
           "hundred euros. They nod to each other across the lane and say nothing more. Father Hilario Lemos keeps "
           "telling him to settle it.",
           "wakes up at 6 am, works in the press house from 7:30 am to 7 pm through the harvest, at the press and "
           "the fermenting tanks in the cellar, eats lunch at home at 1 pm with the family and the pickers, and goes "
           "to bed at 10 pm",
           "Armando Seixas is pressing the harvest and worrying that the cellar will not hold all of it this year.",
           "Seixas house:bedroom", "Press House:cellar",
           ("Seixas house:kitchen", "Press House:press hall", "Press House:bunk room", "Village Lane:lane",
            "Little Square:square", "Switchback:track", "Terrace Path:path", "Seixas Terraces:west terraces",
            "Chapel:nave", "Landing Steps:steps", "Landing Cafe:cafe", "River Landing:landing")),
    Person("gracinda_seixas", "Gracinda Seixas", 60, ("shrewd", "hospitable", "tireless"),
           "Gracinda Seixas is married to Armando Seixas, who owns the biggest terraces in Ribalonga and the Press "
           "House. Through the harvest she weighs every crate that comes into the press hall and writes each "
           "grower's tally in the press book, and at one o'clock she feeds the family and the two hired pickers, "
           "Bishal Thapa and Vasile Rusu, at her own table; she is the only one besides her son Tiago Seixas who "
           "talks to them. Rosa Quintas, who keeps the cafe by the landing, has been her friend since they sat "
           "together in Celeste Amaral's classroom. She holds that Abilio Ferraz, the cooper, was paid what his work "
           "on the vat was worth, and she crosses the lane rather than pass his door. Lurdes Canelas stops for a "
           "word every time she unloads.",
           "wakes up at 5:30 am, weighs the crates and keeps the press book in the press hall from 8 am to 12:30 pm "
           "and from 2:30 pm to 7 pm, cooks lunch for the family and the pickers at 1 pm, and goes to bed at 10 pm",
           "Gracinda Seixas is keeping the harvest's accounts and feeding two extra mouths every day.",
           "Seixas house:bedroom", "Press House:press hall",
           ("Seixas house:kitchen", "Press House:cellar", "Press House:bunk room", "Village Lane:lane",
            "Little Square:square", "Amaral house:sitting room", "Landing Steps:steps", "Landing Cafe:cafe",
            "River Landing:landing", "Chapel:nave", "Switchback:track", "Terrace Path:path")),
    Person("tiago_seixas", "Tiago Seixas", 33, ("easygoing", "capable", "impatient"),
           "Tiago Seixas is the son of Armando Seixas and Gracinda Seixas and runs the picking on the family's "
           "terraces in Ribalonga. He came back from an agronomy course in the city to take over from his father, "
           "and this harvest he hired two pickers through an agency, Bishal Thapa and Vasile Rusu, and picks beside "
           "them every day; they are the only people in the hamlet they know besides his mother. Lurdes Canelas, who "
           "hauls his crates down the switchback, is his oldest friend. Celeste Amaral taught him to read, and as a "
           "boy he swam off the gravel at Mill Cove every summer. He thinks his father should pay Abilio Ferraz and "
           "be done with it, but he has never said so to either of them. In the evenings he drinks a beer at Rosa "
           "Quintas's cafe by the landing and plays cards with her nephew Duarte Quintas.",
           "wakes up at 6:30 am, leads the picking on the terraces from 7:30 am to 6 pm with lunch at home at 1 pm, "
           "drinks a beer at the cafe by the landing at 8 pm, and goes to bed at 11 pm",
           "Tiago Seixas is trying to get the top terraces picked before the rain forecast for the weekend.",
           "Seixas house:Tiago Seixas's room", "Seixas Terraces:west terraces",
           ("Seixas house:kitchen", "Seixas Terraces:east terraces", "Terrace Path:path", "Switchback:track",
            "Press House:press hall", "Press House:cellar", "Press House:bunk room", "Village Lane:lane",
            "Little Square:square", "Landing Steps:steps", "Landing Cafe:cafe", "River Landing:landing",
            "Riverside Path:path", "Mill Path:path", "Old Mill:ruin", "Mill Cove:gravel beach")),
    Person("bishal_thapa", "Bishal Thapa", 27, ("diligent", "shy", "hopeful"),
           "Bishal Thapa comes from a hill village above Pokhara in Nepal and has been working harvests in Portugal "
           "for two years through an agency in the city. He came to Ribalonga five days ago for the grape harvest "
           "and sleeps in the bunk room over the press in the Press House with Vasile Rusu, the other picker. "
           "Tiago Seixas, who hired them, picks beside them on the terraces, and Gracinda Seixas feeds them at her "
           "table at lunch; besides Vasile, they are the only people in the hamlet he knows by name. He speaks a "
           "little Portuguese and some English. The stone terraces remind him of the rice terraces at home.",
           "wakes up at 6 am, climbs the switchback with Vasile Rusu and picks on the terraces from 7:30 am to 6 pm, "
           "eats lunch at the Seixas house at 1 pm, calls his family on his phone in the evening, and goes to bed at "
           "9:30 pm",
           "Bishal Thapa is sending what he earns home for his younger sister's school fees.",
           "Press House:bunk room", "Seixas Terraces:west terraces",
           ("Seixas Terraces:east terraces", "Terrace Path:path", "Switchback:track", "Village Lane:lane",
            "Press House:press hall", "Seixas house:kitchen")),
    Person("vasile_rusu", "Vasile Rusu", 44, ("quiet", "steady", "wry"),
           "Vasile Rusu comes from a village in Moldova and has followed harvests across Europe for fifteen years: "
           "strawberries in Spain, apples in Poland, grapes wherever the agency sends him. This is his first harvest "
           "in Ribalonga. He sleeps in the bunk room over the press in the Press House with Bishal Thapa, the other "
           "picker, and looks out for him. Tiago Seixas, who hired them, and Gracinda Seixas, who feeds them at "
           "lunch, are the only others in the hamlet he knows. He was a carpenter at home, and he has stopped more "
           "than once at the open door of the cooperage across the lane without going in.",
           "wakes up at 6 am, climbs the switchback with Bishal Thapa and picks on the terraces from 7:30 am to 6 pm, "
           "eats lunch at the Seixas house at 1 pm, smokes a cigarette in the lane in the evening, and goes to bed at "
           "10 pm",
           "Vasile Rusu is saving to put a new roof on his mother's house before the winter.",
           "Press House:bunk room", "Seixas Terraces:east terraces",
           ("Seixas Terraces:west terraces", "Terrace Path:path", "Switchback:track", "Village Lane:lane",
            "Press House:press hall", "Seixas house:kitchen", "Little Square:square")),
    Person("abilio_ferraz", "Abilio Ferraz", 71, ("meticulous", "stubborn", "gentle"),
           "Abilio Ferraz is the last cooper in the valley and mends barrels in the Ferraz Cooperage in Ribalonga, as "
           "his father did. His wife Amelia died four winters ago and he lives alone in the house next to the "
           "workshop. He has been at odds with Armando Seixas and Gracinda Seixas for three years: he rebuilt the big "
           "oak vat in their cellar and re-hooped sixty of their barrels, and they paid him two thirds of the bill "
           "and said the staves were not the oak agreed on; he says they owe him three thousand eight hundred euros, "
           "and he has not set foot in the Press House since. Lurdes Canelas brings him the growers' leaking barrels "
           "on her trailer. He eats his lunch at Rosa Quintas's cafe by the landing every day. In July he let her "
           "nephew Duarte Quintas have four old barrels that were past mending and asked no questions, and showed him "
           "how to drive a hoop tight. Celeste Amaral is his friend and beats him at dominoes. He fishes for barbel "
           "off the gravel at Mill Cove in the evenings.",
           "wakes up at 6:30 am, works in the cooperage from 8 am to 12:30 pm and from 2 pm to 6 pm, eats lunch at the "
           "cafe by the landing at 12:30 pm, fishes at Mill Cove from 6:30 pm until dark, and goes to bed at 10 pm",
           "Abilio Ferraz has more leaking barrels than he can mend before the new wine needs them.",
           "Ferraz house:bedroom", "Ferraz Cooperage:workshop",
           ("Ferraz house:kitchen", "Ferraz Cooperage:stave store", "Village Lane:lane", "Little Square:square",
            "Amaral house:sitting room", "Landing Steps:steps", "Landing Cafe:cafe", "River Landing:landing",
            "Riverside Path:path", "Mill Path:path", "Old Mill:ruin", "Mill Cove:gravel beach")),
    Person("lurdes_canelas", "Lurdes Canelas", 46, ("cheerful", "fearless", "chatty"),
           "Lurdes Canelas drives the small tractor and trailer that brings the crates down the switchback from the "
           "terraces of Ribalonga to the Press House, for the Seixas family and the small growers alike; in the "
           "harvest she makes the run every half hour and has a word with everyone she passes. She is divorced and "
           "lives alone in the Canelas house next to the Tractor Shed. Tiago Seixas is her oldest friend; Armando "
           "Seixas and Gracinda Seixas pay her by the load, and she carries Abilio Ferraz's barrels too and keeps out "
           "of their quarrel. On Sundays she drives Celeste Amaral up to Mass at the chapel on the trailer, and "
           "Father Hilario Lemos blesses the tractor every September. She has never been along the river past the "
           "landing: she says the path below the rocks is for goats.",
           "wakes up at 6 am, takes the tractor out of the shed at 7:30 am and runs crates down the switchback from "
           "the terraces to the press house every half hour until 6:30 pm, eats her lunch on the tractor seat, has a "
           "coffee at the cafe by the landing at 7 pm, and goes to bed at 10 pm",
           "Lurdes Canelas is nursing the tractor's worn clutch through the last ten days of the harvest.",
           "Canelas house:room", "Switchback:track",
           ("Canelas house:kitchen", "Tractor Shed:shed", "Seixas Terraces:west terraces",
            "Seixas Terraces:east terraces", "Terrace Path:path", "Press House:press hall", "Village Lane:lane",
            "Little Square:square", "Ferraz Cooperage:workshop", "Chapel:nave", "Landing Steps:steps",
            "Landing Cafe:cafe", "River Landing:landing")),
    Person("hilario_lemos", "Hilario Lemos", 67, ("gentle", "absent-minded", "patient"),
           "Father Hilario Lemos is the priest of the chapel of Ribalonga, at the top of the slope, and keeps twelve "
           "hives of bees in the chapel garden beside it; he lives in the Presbytery next door. He has known every "
           "family in the hamlet for thirty years. He has been trying for three years to bring Armando Seixas and "
           "Abilio Ferraz to settle the money between them, and both of them change the subject. Celeste Amaral comes "
           "to his weekday Mass and corrects his sermons; Lurdes Canelas brings her up on Sundays. He buys his bread "
           "and his newspaper off the morning boat at Rosa Quintas's cafe. Most afternoons he walks down along the "
           "river to read his breviary on the gravel at Mill Cove, where nobody interrupts him. He has not yet met "
           "the two pickers.",
           "wakes up at 6 am, says Mass in the chapel at 8 am, tends his bees in the chapel garden from 9:30 am to "
           "noon, visits people in the village in the afternoon, reads his breviary at Mill Cove at 5 pm, and goes to "
           "bed at 9:30 pm",
           "Hilario Lemos is feeding his bees syrup to carry them through the winter.",
           "Presbytery:room", "Chapel:nave",
           ("Presbytery:kitchen", "Chapel:sacristy", "Chapel Garden:hives", "Terrace Path:path", "Switchback:track",
            "Village Lane:lane", "Little Square:square", "Amaral house:sitting room", "Landing Steps:steps",
            "Landing Cafe:cafe", "River Landing:landing", "Riverside Path:path", "Mill Path:path", "Old Mill:ruin",
            "Mill Cove:gravel beach")),
    Person("celeste_amaral", "Celeste Amaral", 79, ("sharp", "kind", "exacting"),
           "Celeste Amaral was the schoolmistress of Ribalonga for thirty-eight years, until the school closed, and "
           "taught Gracinda Seixas, Rosa Quintas, Lurdes Canelas and Tiago Seixas among many others; she still "
           "corrects their grammar. She lives alone in the Amaral house on the lane and spends her mornings on the "
           "bench in the Little Square with her knitting, watching who goes by. Abilio Ferraz is her friend and "
           "loses to her at dominoes, and she has told both him and Armando Seixas that they are fools about the "
           "money. She goes to Father Hilario Lemos's weekday Mass when her knees allow the climb. Every spring she "
           "used to take her pupils down to Mill Cove to look for river mussel shells. She has not yet made out who "
           "the two strangers in the bunk room are.",
           "wakes up at 7 am, sits on the bench in the little square from 9 am to noon, eats lunch at home, rests in "
           "the afternoon, goes down the landing steps to meet the afternoon boat at 5:30 pm for her newspaper, and "
           "goes to bed at 9:30 pm",
           "Celeste Amaral is knitting a blanket for Rosa Quintas's nephew to take with him when he leaves.",
           "Amaral house:bedroom", "Little Square:square",
           ("Amaral house:sitting room", "Village Lane:lane", "Ferraz house:kitchen", "Press House:press hall",
            "Chapel:nave", "Switchback:track", "Terrace Path:path", "Landing Steps:steps", "Landing Cafe:cafe",
            "River Landing:landing", "Riverside Path:path", "Mill Path:path", "Old Mill:ruin",
            "Mill Cove:gravel beach")),
    Person("rosa_quintas", "Rosa Quintas", 51, ("warm", "talkative", "hard-headed"),
           "Rosa Quintas keeps the Landing Cafe by the river landing in Ribalonga, the only cafe in the hamlet, where "
           "the river boat calls twice a day, going down at 9:20 in the morning and coming back up at 5:30 in the "
           "afternoon; she meets it, takes in the bread and the post, and sells the coffee and the stamps. Her nephew "
           "Duarte Quintas has lived with her since her sister went to work in Switzerland two years ago, and he "
           "helps her in the cafe. Gracinda Seixas has been her friend since school, and Celeste Amaral taught them "
           "both. Abilio Ferraz eats his lunch at her counter every day, and she will not hear a word about the "
           "Seixas money in her cafe from either side. Tiago Seixas and Lurdes Canelas come in most evenings. She "
           "has not had the two pickers in yet.",
           "wakes up at 6 am, opens the cafe at 7 am, meets the river boat at the landing at 9:20 am and 5:30 pm, "
           "serves lunch from 12:30 pm to 2:30 pm, closes at 9 pm, and goes to bed at 10:30 pm",
           "Rosa Quintas is dreading the winter, when the boat stops calling in the afternoon and the cafe empties.",
           "Quintas house:Rosa Quintas's room", "Landing Cafe:cafe",
           ("Quintas house:kitchen", "Landing Cafe:kitchen", "River Landing:landing", "Riverside Path:path",
            "Landing Steps:steps", "Village Lane:lane", "Little Square:square", "Seixas house:kitchen",
            "Press House:press hall", "Chapel:nave")),
    Person("duarte_quintas", "Duarte Quintas", 17, ("restless", "inventive", "talkative"),
           "Duarte Quintas came from Lisbon two years ago to live with his aunt Rosa Quintas in Ribalonga when his "
           "mother went to work in Switzerland. He finished school in June and helps in his aunt's cafe by the "
           "landing until January, when he starts as an apprentice at a boatyard down the river. He carries the "
           "bread off the morning boat and serves the coffee, and he is the one who knows the boatmen. Tiago "
           "Seixas plays cards with him in the evenings, Lurdes Canelas lets him drive the tractor on the flat "
           "stretch of the lane, and Abilio Ferraz, who let him have four old barrels in July, showed him how to "
           "drive a hoop tight. He spent the summer evenings down at Mill Cove on something of his own. Celeste "
           "Amaral corrects his grammar whenever he passes her bench. He has not spoken to the two pickers.",
           "wakes up at 7 am, helps in the cafe from 7:30 am, carries the bread off the river boat at 9:20 am, is free "
           "from 10 am until the lunch service at 12:30 pm, works in the cafe again until 3 pm and from 5 pm to 9 pm, "
           "and goes to bed at midnight",
           "Duarte Quintas has finished what he has been building at Mill Cove since June and has shown it to nobody.",
           "Quintas house:Duarte Quintas's room", "Landing Cafe:cafe",
           ("Quintas house:kitchen", "Landing Cafe:kitchen", "River Landing:landing", "Riverside Path:path",
            "Mill Path:path", "Old Mill:ruin", "Mill Cove:gravel beach", "Landing Steps:steps", "Village Lane:lane",
            "Little Square:square", "Ferraz Cooperage:workshop", "Tractor Shed:shed")),
]

EVENT = Event(
    file="barrel_raft", name="A raft off the gravel at Mill Cove",
    description="Duarte Quintas, seventeen, who helps at his aunt's cafe by the landing, decides of his own accord to "
    "put into the river, in the late morning of the second day, the raft he has built over the summer from four old "
    "barrels and the planks of the old landing stage, off the gravel beach at Mill Cove below the ruined mill, and "
    "to let anyone who dares take a turn on it. Nobody else is told: does word climb the switchback to the terraces "
    "in the middle of the harvest, reach the two pickers who know almost nobody, cross the quarrel over money between "
    "the Seixas family and the cooper, and who leaves the picking to go down along the river to the cove?",
    start="2026-10-06T07:00:00Z", host="duarte_quintas",
    text="Your raft is finished, and you have made up your mind: on Wednesday it goes into the river. You built it "
    "yourself over the summer evenings, from four barrels Abilio Ferraz said were past mending and the planks of the "
    "old landing stage, and nobody has seen it yet. You will be on the gravel beach at Mill Cove, below the ruined "
    "mill, from ten until half past eleven in the morning, after the morning boat has gone and before the lunch "
    "service, while the river still lies slack. You will push it off the gravel, paddle it out to the willow snag and "
    "back, and let anyone brave enough take a turn. Nobody asked you to; it is your own idea, and you want a crowd "
    "on that beach to see whether it floats. You will tell whoever you meet.",
    topic="raft at Mill Cove", question="Have you heard about the raft?",
    place="Mill Cove:gravel beach", window=("2026-10-07T10:00:00Z", "2026-10-07T11:30:00Z"))


def write_files(folder: Path = FOLDER) -> None:
    write(folder, NAME, SIZE, BUILDINGS, PEOPLE, EVENT, BARRIERS)


if __name__ == "__main__":
    write_files()
