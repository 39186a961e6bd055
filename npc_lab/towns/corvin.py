"""Corvin Mansions: eleven people in a block of flats on a city street, built in 1926 (town E; who
wrote it and from which brief: README.md here).

The map is the building cut open from the side: the roof at the top, three floors of flats, the
ground floor and the basement, each floor shut off from the next by its slab and joined to it only
by the stairwell (the lift has been out of order since March). The ground floor's lobby opens on
Tanner Street, where the corner shop has its door and the infirmary stands at the far end. The
event: Stan Horak, the caretaker, seals a time capsule under the new tiles of the roof terrace on
the second day.

    .venv/bin/python -m npc_lab.towns.corvin   # writes npc_lab/towns/corvin/ again
"""

from __future__ import annotations

from pathlib import Path

from npc_lab.towns.plan import Building, Event, Person, Room, write

NAME = "Corvin Mansions"
FOLDER = Path(__file__).with_suffix("")
SIZE = (88, 48)
BARRIERS = (
    # The slabs under the roof and under each floor; the stairwell passes through them.
    (0, 7, 44, 7), (0, 15, 44, 15), (0, 23, 44, 23), (0, 31, 44, 31), (0, 39, 44, 39),
    (45, 0, 45, 47),  # the building's street wall; the lobby's doors pass through it
    (46, 0, 87, 25),  # the air above the street
    (46, 40, 87, 47),  # the earth under it
)

BUILDINGS = [
    # The roof.
    Building("Rooftop", (19, 0), (Room("terrace", ("water tank", "planters of tomatoes and beans", "benches",
                                                   "washing lines", "stack of new tiles", "heap of cracked tiles"),
                                       20),), depth=6, walled=False),
    Building("Stairwell", (15, 0), (Room("stairs", ("handrail", "landing windows", "light switch on a timer"), 3),),
             depth=47, walled=False),
    # Third floor.
    Building("Flat 6", (1, 8), (Room("bedroom", ("bed", "clothes rail"), 4),
                                Room("music room", ("double bass", "music stand", "metronome", "record player"), 6)),
             residents=("Cosmo Lindqvist",)),
    Building("Flat 7", (19, 8), (Room("bedroom", ("bed", "bookshelf"), 4),
                                 Room("study", ("desk", "two monitors", "headphones", "kettle"), 5)),
             residents=("Hana Kobayashi",)),
    Building("Flat 8", (32, 8), (Room("room", ("bed", "desk", "drawing board"), 5),
                                 Room("kitchenette", ("hob", "fridge"), 4)),
             residents=("Yusuf Demir",)),
    # Second floor.
    Building("Flat 3", (1, 16), (Room("bedroom", ("bed", "blackout curtains", "alarm clock"), 4),
                                 Room("kitchen", ("cooker", "table", "calendar of shifts"), 5)),
             residents=("Odile Ferrand",)),
    Building("Flat 4", (19, 16), (Room("bedroom", ("bed", "suitcase"), 4),
                                  Room("living room", ("packing boxes", "sofa", "lamp"), 5)),
             residents=("Liesl Varga",)),
    Building("Flat 5", (32, 16), (Room("bedroom", ("bed", "wardrobe"), 4),
                                  Room("kitchen", ("stove", "table", "account books"), 5)),
             residents=("Farida Haidari",)),
    # First floor.
    Building("Flat 1", (1, 24), (Room("room", ("bed", "helmet hook", "games console"), 5),
                                 Room("kitchenette", ("hob", "fridge"), 4)),
             residents=("Dario Mendes",)),
    Building("Flat 2", (19, 24), (Room("bedroom", ("double bed", "wardrobe"), 4),
                                  Room("sitting room", ("armchairs", "television", "wedding photograph", "seed trays"),
                                       6),
                                  Room("kitchen", ("stove", "table", "radio"), 4)),
             residents=("Edith Brannigan", "Walter Brannigan")),
    # Ground floor.
    Building("Concierge's Lodge", (1, 32), (Room("bedroom", ("bed", "television"), 4),
                                            Room("kitchen", ("stove", "table", "kettle"), 4)),
             residents=("Ruben Castellano",)),
    Building("Bike Store", (19, 32), (Room("bike store", ("bike racks", "electric bike", "pump", "broken pram"), 8),)),
    Building("Lobby", (30, 32), (Room("lobby", ("concierge's desk", "letterboxes", "notice board", "parcel shelf",
                                                "lift with an out-of-order sign", "bench"), 16),),
             depth=7, walled=False),
    # The basement.
    Building("Basement Flat", (1, 40), (Room("bedroom", ("bed", "radio"), 4),
                                        Room("kitchen", ("stove", "table", "pack of cards"), 4)),
             residents=("Stan Horak",)),
    Building("Basement Laundry", (19, 40), (Room("laundry room", ("washing machines", "tumble dryer", "rota on the wall",
                                                                  "folding table", "basket of lost socks"), 10),)),
    Building("Caretaker's Workshop", (31, 40), (Room("workshop", ("workbench", "tool wall", "spare tiles", "paint tins"),
                                                     6),
                                                Room("boiler room", ("boiler", "pressure gauge", "fuse boards"), 5))),
    # Tanner Street, outside.
    Building("Haidari's Corner Shop", (48, 26), (Room("shop floor", ("counter", "till", "newspaper rack",
                                                                     "fridge of drinks", "shelves of tins"), 8),
                                                 Room("stockroom", ("crates", "chest freezer"), 4))),
    Building("Tanner Street", (46, 33), (Room("pavement", ("bus shelter", "lamp post", "bench", "bins"), 40),), depth=3,
             walled=False),
    Building("Fenwick Infirmary", (66, 26), (Room("ward", ("beds", "nurses' station", "medicine trolley", "monitors"), 8),
                                             Room("laboratory", ("centrifuge", "microscope", "sample fridge"), 6))),
]

PEOPLE = [
    Person("stan_horak", "Stan Horak", 58, ("handy", "unhurried", "sentimental"),
           "Stan Horak is the caretaker of Corvin Mansions, a block of flats on Tanner Street built in 1926, and "
           "lives in the basement flat beside his workshop and the boiler room. He keeps the boiler going, mends "
           "whatever breaks, and has been waiting since March for the lift company to send a part, so everyone "
           "climbs the stairwell. Ruben Castellano at the lobby desk is his friend; they play cards in the workshop on "
           "Sunday nights. Walter Brannigan helps him with odd jobs on the roof. Edith Brannigan brings him her "
           "complaints about the laundry rota, and Odile Ferrand hers about the noise from Cosmo Lindqvist's flat; he "
           "listens to both and takes no sides.",
           "wakes up at 6 am, works about the building from 7 am to 4 pm, and goes to bed at 10 pm",
           "Stan Horak is lifting the cracked tiles of the roof terrace a row at a time and laying new ones before "
           "the summer.",
           "Basement Flat:bedroom", "Caretaker's Workshop:workshop",
           ("Basement Flat:kitchen", "Caretaker's Workshop:boiler room", "Basement Laundry:laundry room",
            "Stairwell:stairs", "Lobby:lobby", "Rooftop:terrace", "Bike Store:bike store",
            "Haidari's Corner Shop:shop floor")),
    Person("ruben_castellano", "Ruben Castellano", 63, ("courteous", "observant", "gossipy"),
           "Ruben Castellano is the concierge of Corvin Mansions: from his desk in the lobby he takes in parcels, "
           "hands out keys and knows who comes and goes. He lives in the concierge's lodge on the ground floor. Stan "
           "Horak, the caretaker, is his friend and his card partner. He keeps parcels for Hana Kobayashi, who "
           "rarely comes down, and for Odile Ferrand, who is asleep when the couriers call. He calls Edith and "
           "Walter Brannigan his oldest tenants, and trades the building's news for the street's with Farida "
           "Haidari. A new tenant moved into Flat 4 last week; he has handed her the keys and not much more.",
           "wakes up at 6:30 am, keeps the desk in the lobby from 7 am to 7 pm, and goes to bed at 11 pm",
           "Ruben Castellano keeps a list on his desk of everyone who has asked when the lift will be mended.",
           "Concierge's Lodge:bedroom", "Lobby:lobby",
           ("Concierge's Lodge:kitchen", "Stairwell:stairs", "Bike Store:bike store", "Tanner Street:pavement",
            "Haidari's Corner Shop:shop floor", "Caretaker's Workshop:workshop", "Basement Laundry:laundry room")),
    Person("odile_ferrand", "Odile Ferrand", 41, ("conscientious", "weary", "kind"),
           "Odile Ferrand is a nurse on the night shift at Fenwick Infirmary, at the far end of Tanner Street, and "
           "sleeps through the day in Flat 3 on the second floor of Corvin Mansions behind blackout curtains. Cosmo "
           "Lindqvist practises his double bass in the flat above hers at all hours; she has pushed three notes under "
           "his door since the winter, and he answered the last with a pair of earplugs, which she did not find "
           "funny. Ruben Castellano keeps her parcels, and Farida Haidari puts a pint of milk aside for her when she "
           "comes off her shift.",
           "wakes up at 4 pm, works the night shift on the ward from 8 pm to 8 am, and goes to bed at 9 am",
           "Odile Ferrand has asked for a week of day shifts, been refused, and is sleeping badly.",
           "Flat 3:bedroom", "Fenwick Infirmary:ward",
           ("Flat 3:kitchen", "Stairwell:stairs", "Lobby:lobby", "Tanner Street:pavement",
            "Haidari's Corner Shop:shop floor", "Basement Laundry:laundry room")),
    Person("cosmo_lindqvist", "Cosmo Lindqvist", 36, ("easy-going", "absent-minded", "devoted"),
           "Cosmo Lindqvist plays the double bass in the jazz clubs of the city and lives in Flat 6 on the top floor "
           "of Corvin Mansions. He comes home after two in the morning and practises when the mood takes him, late "
           "at night or in the afternoon. Odile Ferrand in the flat below keeps pushing notes under his door about "
           "the noise; he sent her earplugs and does not see why that made it worse. Walter Brannigan loves jazz and "
           "sometimes climbs up to listen to him practise. Stan Horak once mended his bass's endpin.",
           "wakes up at 11 am, practises in his music room from 1 pm to 5 pm, goes out to play in the clubs at 9 pm, "
           "and goes to bed at 3 am",
           "Cosmo Lindqvist is learning a hard new set for a recording at the end of the month.",
           "Flat 6:bedroom", "Flat 6:music room",
           ("Stairwell:stairs", "Lobby:lobby", "Rooftop:terrace", "Tanner Street:pavement",
            "Haidari's Corner Shop:shop floor")),
    Person("hana_kobayashi", "Hana Kobayashi", 34, ("private", "diligent", "wry"),
           "Hana Kobayashi writes subtitles for films and series from the study of Flat 7 on the top floor of Corvin "
           "Mansions, and rarely goes out: her groceries come up from Haidari's Corner Shop, carried by Yusuf Demir, "
           "and her parcels wait at the desk with Ruben Castellano until she runs out of excuses. She hears Cosmo "
           "Lindqvist's bass through the wall and rather likes it, though she has never told him. The other "
           "neighbours she has only nodded to on the stairs; she does not know their names.",
           "wakes up at 8 am, works at her desk in the study from 9 am to 7 pm, and goes to bed at 1 am",
           "Hana Kobayashi is subtitling a long crime series against a deadline and has not left the building in "
           "nine days.",
           "Flat 7:bedroom", "Flat 7:study",
           ("Stairwell:stairs", "Lobby:lobby", "Basement Laundry:laundry room")),
    Person("yusuf_demir", "Yusuf Demir", 20, ("curious", "sociable", "disorganised"),
           "Yusuf Demir studies civil engineering at the university and rents Flat 8, the smallest on the top floor "
           "of Corvin Mansions. In the afternoons he works behind the counter at Haidari's Corner Shop for Farida "
           "Haidari, and on Tuesdays he carries a box of groceries up to Hana Kobayashi next door. Dario Mendes is "
           "his friend; they sit out on the roof terrace on warm evenings. He can never remember which day is his on "
           "Edith Brannigan's laundry rota.",
           "wakes up at 8:30 am, studies in his room in the morning, works in the shop from 1 pm to 6 pm, and goes to "
           "bed at 1 am",
           "Yusuf Demir has an exam on bridges next week and keeps putting off revising for it.",
           "Flat 8:room", "Haidari's Corner Shop:shop floor",
           ("Flat 8:kitchenette", "Haidari's Corner Shop:stockroom", "Stairwell:stairs", "Lobby:lobby",
            "Rooftop:terrace", "Bike Store:bike store", "Basement Laundry:laundry room", "Tanner Street:pavement")),
    Person("farida_haidari", "Farida Haidari", 49, ("shrewd", "generous", "talkative"),
           "Farida Haidari keeps Haidari's Corner Shop on the corner of Corvin Mansions, its door on Tanner Street, "
           "and lives in Flat 5 on the second floor. Yusuf Demir works for her in the afternoons. Edith and Walter "
           "Brannigan buy their paper from her every morning, Dario Mendes his energy drinks, and she puts a pint of "
           "milk aside for Odile Ferrand when she comes off her night shift. Ruben Castellano brings her the news of "
           "the building, and she gives him the news of the street.",
           "wakes up at 6 am, keeps the shop from 7 am to 9 pm, and goes to bed at 11 pm",
           "Farida Haidari is worried about the supermarket that is opening two streets away.",
           "Flat 5:bedroom", "Haidari's Corner Shop:shop floor",
           ("Flat 5:kitchen", "Haidari's Corner Shop:stockroom", "Stairwell:stairs", "Lobby:lobby",
            "Tanner Street:pavement", "Basement Laundry:laundry room")),
    Person("edith_brannigan", "Edith Brannigan", 73, ("orderly", "sharp-tongued", "loyal"),
           "Edith Brannigan and her husband Walter Brannigan have lived in Flat 2 on the first floor of Corvin "
           "Mansions since 1979. She drew up the rota for the washing machines in the basement laundry and pins a "
           "fresh copy to the wall every month; Dario Mendes washes out of turn at midnight, and she has told him so "
           "on the stairs more than once. She buys her paper at Farida Haidari's shop each morning, counts Ruben "
           "Castellano a friend, and complains to Stan Horak about the lift.",
           "wakes up at 6:30 am, does the housework and the washing in the morning, and goes to bed at 10 pm",
           "Edith Brannigan is drawing up the laundry rota for June and thinking of leaving Dario Mendes off it.",
           "Flat 2:bedroom", "Basement Laundry:laundry room",
           ("Flat 2:sitting room", "Flat 2:kitchen", "Stairwell:stairs", "Lobby:lobby",
            "Haidari's Corner Shop:shop floor", "Tanner Street:pavement")),
    Person("walter_brannigan", "Walter Brannigan", 76, ("gentle", "stubborn", "patient"),
           "Walter Brannigan is a retired printer who has lived in Flat 2 of Corvin Mansions with his wife Edith "
           "Brannigan since 1979. He grows tomatoes and beans in planters on the roof terrace and climbs the stairs "
           "to them every morning, lift or no lift. Stan Horak lets him help with odd jobs; Cosmo Lindqvist lets him "
           "sit in when he practises, for Walter loves jazz, which Edith does not. He stays out of Edith's war over "
           "the laundry rota.",
           "wakes up at 7 am, tends his planters on the roof terrace from 8 am to 11 am, reads the paper in the "
           "afternoon, and goes to bed at 10 pm",
           "Walter Brannigan is waiting for his first tomatoes to set and keeping the pigeons off the beans.",
           "Flat 2:bedroom", "Rooftop:terrace",
           ("Flat 2:sitting room", "Flat 2:kitchen", "Stairwell:stairs", "Lobby:lobby",
            "Haidari's Corner Shop:shop floor", "Caretaker's Workshop:workshop", "Flat 6:music room")),
    Person("dario_mendes", "Dario Mendes", 27, ("cheerful", "restless", "careless"),
           "Dario Mendes delivers takeaway food across the city on an electric bike that he keeps chained in the bike "
           "store of Corvin Mansions, and lives in Flat 1 on the first floor. He is out on the streets from late "
           "morning until late at night and does his washing in the basement laundry when he gets home, at "
           "midnight, whatever Edith Brannigan's rota says; she has told him off on the stairs more than once. Yusuf "
           "Demir is his friend. He buys energy drinks at Farida Haidari's shop and owes Stan Horak for mending a "
           "puncture.",
           "wakes up at 10 am, rides deliveries from 11 am to 11 pm, and goes to bed at 1 am",
           "Dario Mendes is saving for a faster bike and riding extra hours to get there.",
           "Flat 1:room", "Tanner Street:pavement",
           ("Flat 1:kitchenette", "Bike Store:bike store", "Basement Laundry:laundry room", "Stairwell:stairs",
            "Lobby:lobby", "Haidari's Corner Shop:shop floor", "Rooftop:terrace")),
    Person("liesl_varga", "Liesl Varga", 29, ("reserved", "hopeful", "observant"),
           "Liesl Varga moved into Flat 4 on the second floor of Corvin Mansions last week, from another city, to "
           "start a job as a laboratory technician at Fenwick Infirmary at the far end of Tanner Street. She does not "
           "know anyone in the building yet, nor anyone in the city, and the boxes in her living room are still "
           "mostly packed.",
           "wakes up at 7 am, works in the laboratory at the infirmary from 8:30 am to 5 pm, and goes to bed at 11 pm",
           "Liesl Varga is learning her way around a new city and a new job, and is lonely in the evenings.",
           "Flat 4:bedroom", "Fenwick Infirmary:laboratory",
           ("Flat 4:living room", "Stairwell:stairs", "Lobby:lobby", "Tanner Street:pavement",
            "Haidari's Corner Shop:shop floor")),
]

EVENT = Event(
    file="time_capsule", name="Time capsule",
    description="Stan Horak, the caretaker, decides of his own accord to seal a time capsule under the new tiles "
    "of the roof terrace, where he found the bottle the builders left in 1926, and to let anyone in the building "
    "put something in it. Nobody else is told: does word travel up and down a stairwell where neighbours barely "
    "know each other, to the nurse who sleeps by day, the subtitler who never comes down and the new tenant who "
    "knows nobody, and who climbs to the roof?",
    start="2026-05-21T07:00:00Z", host="stan_horak",
    text="Stan Horak, the caretaker, found a bottle under the cracked tiles of the Rooftop terrace that the "
    "builders left there in 1926, with a newspaper and their names inside, and he wants to put one back: on Friday, "
    "May 22, from 6 to 8 pm, he'll seal a time capsule under the new tiles up on the terrace, and anyone in the "
    "building can bring something small to go in it (a photo, a note, a bus ticket). He's going to ask everyone he "
    "runs into.",
    topic="capsule on the Rooftop", question="Have you heard about a time capsule?",
    place="Rooftop:terrace", window=("2026-05-22T18:00:00Z", "2026-05-22T20:00:00Z"))


def write_files(folder: Path = FOLDER) -> None:
    write(folder, NAME, SIZE, BUILDINGS, PEOPLE, EVENT, BARRIERS)


if __name__ == "__main__":
    write_files()
