"""Bir Tamrit: ten people at a desert crossroads in the hot season, where a trunk road meets a track
up into the hills (town F; who wrote it and from which brief: README.md here).

The trunk road runs west to east across the map; the hill track leaves it at the crossroads and runs
north. A dry wadi cuts the map west to east north of the road and is crossed on foot only at the
Wadi Ford, on the hill track: beyond it lie the goat-keeper's house, his pens, and Kef Rock, a
sandstone outcrop with an overhang. Between the wadi and the road: the school, the well-keeper's
house, the deep well at the crossroads, the caravanserai around its courtyard and the widow's
quarters. South of the road: the fuel pump and the lorry stand at the road's edge, the garage, the
clinic, four homes and the date-palm grove. The event: Amina Tazi, the nurse, shows what the last
sandstorm uncovered under the overhang at Kef Rock, at first light on the second day.

    .venv/bin/python -m npc_lab.towns.tamrit   # writes npc_lab/towns/tamrit/ again
"""

from __future__ import annotations

from pathlib import Path

from npc_lab.towns.plan import Building, Event, Person, Room, write

NAME = "Bir Tamrit"
FOLDER = Path(__file__).with_suffix("")
SIZE = (100, 47)
BARRIERS = ((0, 14, 99, 16),)  # the wadi, west to east; the Wadi Ford crosses it

BUILDINGS = [
    # Beyond the wadi: the goat-keeper's house and pens, the hill track, Kef Rock.
    Building("Ouali house", (4, 2), (Room("room", ("bed", "rug", "radio", "tea things"), 5),
                                     Room("yard", ("tethering post", "fodder sacks"), 4)),
             residents=("Brahim Ouali",)),
    Building("Goat Pens", (22, 2), (Room("pens", ("thorn fence", "water trough", "milking stool", "hay rack"), 12),),
             depth=6, walled=False),
    Building("Hill Track", (48, 0), (Room("track", ("cairn", "stony ruts", "acacia"), 3),), depth=13, walled=False),
    Building("Kef Rock", (66, 1), (Room("overhang", ("sandstone overhang", "fallen slab", "sand drift",
                                                     "goat path"), 14),), depth=7, walled=False),
    Building("Wadi Ford", (46, 13), (Room("ford", ("dry stream bed", "stepping stones", "tamarisk bush"), 7),), depth=5,
             walled=False),
    # Between the wadi and the road: the school, the well, the caravanserai.
    Building("School", (2, 19), (Room("schoolroom", ("blackboard", "pupils' benches", "teacher's desk", "water jar",
                                                     "map of the country"), 9),)),
    Building("Haddou house", (16, 19), (Room("bedroom", ("bed", "ceiling fan"), 4),
                                        Room("storeroom", ("coils of rope", "spare buckets", "ledger of water turns"),
                                             4)),
             residents=("Yacine Haddou",)),
    Building("Deep Well", (34, 20), (Room("well head", ("well mouth", "windlass", "stone troughs", "leather buckets",
                                                        "water skins"), 9),), depth=5, walled=False),
    Building("Caravanserai", (56, 18), (Room("courtyard", ("old palm tree", "benches", "tea brazier", "awning",
                                                           "water jars"), 10),
                                        Room("guest room", ("iron bed", "ceiling fan", "washbasin"), 5),
                                        Room("kitchen", ("clay oven", "gas ring", "shelves of glasses"), 5)), depth=5),
    Building("Oudghiri quarters", (83, 19), (Room("Zahra Oudghiri's room", ("bed", "chest", "wedding photograph"), 5),
                                             Room("Samir Oudghiri's room", ("mattress", "phone charger",
                                                                            "motor magazines"), 5)),
             residents=("Zahra Oudghiri", "Samir Oudghiri")),
    # The trunk road, and the crossroads where the hill track meets it.
    Building("Trunk Road", (0, 26), (Room("west road", ("kilometre stone", "sand drifts"), 44),
                                     Room("crossroads", ("signpost", "bench under a tamarisk"), 12),
                                     Room("east road", ("kilometre stone", "telegraph poles"), 44)), depth=3,
             walled=False),
    # South of the road: the pump and the garage at the road's edge, the clinic, homes, the grove.
    Building("Fuel Pump", (2, 30), (Room("forecourt", ("fuel pump", "air line", "oil drums", "water can"), 8),),
             depth=3, walled=False),
    Building("Lorry Stand", (12, 30), (Room("hardstanding", ("parked lorry", "wheel chocks", "tarpaulins"), 12),),
             depth=3, walled=False),
    Building("Amrani Garage", (2, 34), (Room("workshop", ("inspection pit", "tool bench", "engine hoist",
                                                          "compressor"), 9),
                                        Room("parts store", ("tyres", "shelves of parts"), 4)), door="north"),
    Building("Amrani house", (20, 34), (Room("bedroom", ("bed", "fan"), 4), Room("kitchen", ("stove", "table"), 4)),
             residents=("Rachid Amrani",), door="north"),
    Building("Clinic", (34, 34), (Room("waiting room", ("bench", "water cooler", "notices"), 5),
                                  Room("consulting room", ("examination couch", "medicine cabinet", "scales", "desk"),
                                       6)), door="north"),
    Building("Fassi house", (50, 34), (Room("bedroom", ("bed", "bookshelf"), 4),
                                       Room("sitting room", ("cushions", "pile of copybooks", "fan"), 5)),
             residents=("Leila Fassi",), door="north"),
    Building("Tazi house", (64, 34), (Room("bedroom", ("bed", "alarm clock"), 4),
                                      Room("kitchen", ("stove", "table", "shelf of medical books"), 4)),
             residents=("Amina Tazi",), door="north"),
    Building("Zerhouni house", (77, 34), (Room("Malika Zerhouni's room", ("bed", "account book"), 5),
                                          Room("Hassan Zerhouni's room", ("bed", "climbing belt"), 5),
                                          Room("kitchen", ("stove", "table", "date baskets"), 4)),
             residents=("Malika Zerhouni", "Hassan Zerhouni"), door="north"),
    Building("Palm Grove", (56, 41), (Room("palms", ("date palms", "irrigation channel", "ladders", "sluice gate"), 30),
                                      Room("drying floor", ("palm mats", "crates", "shade of fronds"), 10)), depth=5,
             walled=False),
]

PEOPLE = [
    Person("amina_tazi", "Amina Tazi", 47, ("conscientious", "stubborn", "curious"),
           "Amina Tazi is the nurse at the small clinic of Bir Tamrit, the only one for a long way in any direction; "
           "the nearest doctor is a day's drive north. Two summers ago, when children on the hill track came down "
           "with fevers, she put chlorine in the deep well, and Leila Fassi, the teacher, said in front of everyone "
           "that she had spoiled the water and frightened the parents for nothing; the two of them have hardly "
           "spoken since. Yacine Haddou, the well-keeper, helped her do it and wishes he had not been asked. Zahra "
           "Oudghiri is her friend, and she climbs up past the wadi to see to Brahim Ouali's bad knee.",
           "wakes up at 4:30 am, goes out on the hill track at first light, keeps the clinic from 7 am to noon and "
           "from 5 pm to 7 pm, rests indoors through the heat of the day, and goes to bed at 10 pm",
           "Amina Tazi is short of rehydration salts now the heat has come, and the order from the city is late.",
           "Tazi house:bedroom", "Clinic:consulting room",
           ("Tazi house:kitchen", "Clinic:waiting room", "Deep Well:well head", "Trunk Road:crossroads",
            "Caravanserai:courtyard", "Wadi Ford:ford", "Hill Track:track", "Kef Rock:overhang", "Ouali house:room")),
    Person("leila_fassi", "Leila Fassi", 34, ("proud", "devoted", "sharp"),
           "Leila Fassi is the teacher of the one-room school at Bir Tamrit; her pupils come down the hill track on "
           "donkeys from the hamlets, and in the hot season she teaches only in the morning. She has never forgiven "
           "Amina Tazi, the nurse, for putting chlorine in the well two summers ago: she says the water has tasted "
           "of it ever since and the children were never in danger, and she does not speak to her. Malika "
           "Zerhouni is her friend; Yacine Haddou fills the school's water jar each morning; Rachid Amrani mended "
           "her bicycle and will not take money for it.",
           "wakes up at 5:30 am, teaches at the school from 7 am to 11:30 am, rests indoors through the heat of the "
           "day, marks copybooks in the caravanserai courtyard in the evening, and goes to bed at 10 pm",
           "Leila Fassi is writing the end-of-year reports and hoping the ministry will not close her school.",
           "Fassi house:bedroom", "School:schoolroom",
           ("Fassi house:sitting room", "Deep Well:well head", "Trunk Road:crossroads", "Caravanserai:courtyard",
            "Palm Grove:palms", "Fuel Pump:forecourt")),
    Person("yacine_haddou", "Yacine Haddou", 56, ("patient", "even-tempered", "careful"),
           "Yacine Haddou keeps the deep well at the crossroads of Bir Tamrit, eighty metres down to the water: he "
           "works the windlass, mends the ropes and buckets, keeps the ledger of water turns for the grove and the "
           "troughs, and fills the school's jar every morning. He lives alone in Haddou house beside the well. He "
           "helped Amina Tazi put chlorine in the well two summers ago and has been stuck between her and Leila "
           "Fassi ever since. Brahim Ouali takes tea with him by the troughs; Malika and Hassan Zerhouni draw their "
           "water turns from him.",
           "wakes up at 4 am, works the well from 5 am to 10 am, rests indoors through the heat of the day, works the "
           "well again from 5 pm to 8 pm, and goes to bed at 10 pm",
           "Yacine Haddou is watching the water drop in the well, a hand's breadth lower than last summer.",
           "Haddou house:bedroom", "Deep Well:well head",
           ("Haddou house:storeroom", "Trunk Road:crossroads", "School:schoolroom", "Clinic:waiting room",
            "Caravanserai:courtyard", "Palm Grove:palms")),
    Person("zahra_oudghiri", "Zahra Oudghiri", 58, ("hospitable", "shrewd", "brisk"),
           "Zahra Oudghiri is a widow who keeps the caravanserai at the crossroads of Bir Tamrit, the inn around a "
           "courtyard that her late husband's family kept before her. Her nephew Samir Oudghiri came from the city "
           "in March to live with her and help. Mourad Benkirane, a lorry driver, takes her guest room two nights "
           "a week on his run south. Amina Tazi is her friend; Brahim Ouali sits out the heat in her courtyard; "
           "Rachid Amrani eats at her table most evenings.",
           "wakes up at 5 am, keeps the caravanserai from 6 am to 1 pm, rests in her room through the heat of the "
           "afternoon, keeps the courtyard again from 5 pm to 11 pm, and goes to bed at 11:30 pm",
           "Zahra Oudghiri has few travellers in the heat and is thinking of letting the empty rooms to the road "
           "gangs.",
           "Oudghiri quarters:Zahra Oudghiri's room", "Caravanserai:courtyard",
           ("Caravanserai:kitchen", "Caravanserai:guest room", "Deep Well:well head", "Trunk Road:crossroads",
            "Clinic:waiting room", "Fuel Pump:forecourt")),
    Person("samir_oudghiri", "Samir Oudghiri", 16, ("restless", "good-natured", "bored"),
           "Samir Oudghiri is sixteen and came from the city in March to live with his aunt Zahra Oudghiri and help "
           "her at the caravanserai: he carries water from the well, serves tea and sweeps the courtyard. He would "
           "rather be in Rachid Amrani's garage, and hangs about the pump whenever his aunt lets him. Brahim Ouali "
           "tells him stories about the old caravans. In the evenings he climbs past the wadi, where his phone "
           "finds a signal.",
           "wakes up at 6 am, helps at the caravanserai from 7 am to 1 pm, sleeps through the heat of the afternoon, "
           "works again from 6 pm to 10 pm, and goes to bed at midnight",
           "Samir Oudghiri misses his friends in the city and is saving for a motorbike.",
           "Oudghiri quarters:Samir Oudghiri's room", "Caravanserai:kitchen",
           ("Caravanserai:courtyard", "Caravanserai:guest room", "Deep Well:well head", "Trunk Road:crossroads",
            "Fuel Pump:forecourt", "Amrani Garage:workshop", "Wadi Ford:ford", "Hill Track:track",
            "Kef Rock:overhang")),
    Person("rachid_amrani", "Rachid Amrani", 41, ("tireless", "jokey", "practical"),
           "Rachid Amrani is the mechanic of Bir Tamrit: his garage and its fuel pump stand at the edge of the trunk "
           "road, and he works through the heat of the day when everyone else is indoors, with a wet cloth round "
           "his neck. He services the lorries that stop at the crossroads, Mourad Benkirane's among them, and eats "
           "at Zahra Oudghiri's table most evenings. Samir Oudghiri hangs about his workshop, and he lets him hand "
           "him tools. He mended Leila Fassi's bicycle and the motor of Yacine Haddou's pump.",
           "wakes up at 6 am, works in the garage and at the pump from 7 am to 7 pm, heat or no heat, and goes to bed "
           "at 11 pm",
           "Rachid Amrani is waiting for a radiator for Mourad Benkirane's lorry, which the bus from the city should "
           "have brought.",
           "Amrani house:bedroom", "Amrani Garage:workshop",
           ("Amrani house:kitchen", "Amrani Garage:parts store", "Fuel Pump:forecourt", "Lorry Stand:hardstanding",
            "Trunk Road:west road", "Trunk Road:crossroads", "Caravanserai:courtyard", "Deep Well:well head")),
    Person("malika_zerhouni", "Malika Zerhouni", 31, ("capable", "serious", "loyal"),
           "Malika Zerhouni works the date-palm grove south of the road with her younger brother Hassan Zerhouni; "
           "their father left it to them both. She keeps the accounts and the irrigation, opens the sluices when "
           "their water turn comes from Yacine Haddou at the well, and wants to sell to the city buyer this year. "
           "Leila Fassi, the teacher, is her friend.",
           "wakes up at 4 am, works in the grove from 5 am to 10 am, rests indoors through the heat of the day, "
           "works in the grove again from 5 pm to 8 pm, and goes to bed at 9:30 pm",
           "Malika Zerhouni is thinning the young bunches on the palms and counting what the heat will leave.",
           "Zerhouni house:Malika Zerhouni's room", "Palm Grove:palms",
           ("Zerhouni house:kitchen", "Palm Grove:drying floor", "Deep Well:well head", "Trunk Road:crossroads",
            "Fassi house:sitting room", "Caravanserai:courtyard")),
    Person("hassan_zerhouni", "Hassan Zerhouni", 27, ("cheerful", "easy-going", "strong"),
           "Hassan Zerhouni works the date-palm grove with his elder sister Malika Zerhouni; he climbs the palms with "
           "a belt and a knife, ties up the bunches and cuts the old fronds. He would rather sell the dates in the "
           "towns along the road themselves than to the city buyer, and they argue about it. Brahim Ouali buys "
           "fronds from him for his goat pens; he drinks tea with Yacine Haddou at the well.",
           "wakes up at 4 am, works in the grove from 5 am to 10 am, sleeps through the heat of the day, works in the "
           "grove again from 5 pm to 8 pm, and goes to bed at 11 pm",
           "Hassan Zerhouni is tying the bunches to the fronds before they grow too heavy.",
           "Zerhouni house:Hassan Zerhouni's room", "Palm Grove:palms",
           ("Zerhouni house:kitchen", "Palm Grove:drying floor", "Deep Well:well head", "Trunk Road:crossroads",
            "Trunk Road:east road", "Goat Pens:pens")),
    Person("brahim_ouali", "Brahim Ouali", 78, ("talkative", "wise", "teasing"),
           "Brahim Ouali keeps goats on the far side of the wadi, up the hill track from Bir Tamrit, and has lived "
           "here longer than anyone; he knows everyone. He takes tea with Yacine Haddou at the well and sits out the "
           "heat in Zahra Oudghiri's courtyard, tells her nephew Samir Oudghiri stories of the old caravans, buys "
           "fronds from Hassan Zerhouni and teases his sister Malika Zerhouni about husbands. He lets Amina Tazi see "
           "to his bad knee and sides with nobody in her quarrel with Leila Fassi, whose pupils wave to him from "
           "their donkeys. He watched Rachid Amrani grow up in his father's garage. A new lorry driver has "
           "started stopping at the caravanserai this spring; Brahim has not yet spoken to him.",
           "wakes up at 4 am, takes his goats out along the hill track from 5 am to 9 am, sits out the heat of the day "
           "at the well or in the caravanserai courtyard, takes the goats out again from 5 pm to 7 pm, and goes to bed "
           "at 9 pm",
           "Brahim Ouali is worried that the grazing up the hill track is burning off early this year.",
           "Ouali house:room", "Goat Pens:pens",
           ("Ouali house:yard", "Hill Track:track", "Wadi Ford:ford", "Kef Rock:overhang", "Deep Well:well head",
            "Trunk Road:crossroads", "Caravanserai:courtyard", "Palm Grove:palms", "Clinic:waiting room",
            "School:schoolroom", "Fuel Pump:forecourt")),
    Person("mourad_benkirane", "Mourad Benkirane", 49, ("reserved", "steady", "dry"),
           "Mourad Benkirane drives a lorry of cement and tinned goods on the long run from the coast to the towns "
           "of the south. He took this route in April, and he stops at Bir Tamrit two nights a week, sleeping in "
           "the guest room of the caravanserai kept by Zahra Oudghiri. Rachid Amrani, the mechanic, fills his tanks "
           "and sees to his lorry. He knows nobody else in the place.",
           "on his stops wakes up at 7 am, sees to his lorry on the hardstanding and at the garage from 8 am to noon, "
           "sleeps through the heat of the afternoon, sits in the caravanserai courtyard in the evening, and goes to "
           "bed at 11 pm",
           "Mourad Benkirane is held at Bir Tamrit until Thursday afternoon, waiting for a new radiator for his "
           "lorry.",
           "Caravanserai:guest room", "Lorry Stand:hardstanding",
           ("Caravanserai:courtyard", "Fuel Pump:forecourt", "Amrani Garage:workshop", "Trunk Road:crossroads",
            "Trunk Road:west road")),
]

EVENT = Event(
    file="giraffe_engravings", name="Giraffes at first light",
    description="Amina Tazi, the nurse, decides of her own accord to show what last week's sandstorm uncovered "
    "under the overhang at Kef Rock: a line of giraffes engraved in the sandstone, faint enough that they show only "
    "in the slanting light just after sunrise. Nobody else is told: does word cross the wadi and the road, reach the "
    "teacher she does not speak to, the mechanic who works through the heat and the lorry driver who knows only "
    "two people, while half the settlement sleeps through the middle of the day, and who climbs up at dawn?",
    start="2026-06-10T07:00:00Z", host="amina_tazi",
    text="Under the overhang at Kef Rock, where last week's sandstorm scoured away the drift, there are engravings of "
    "giraffes: five of them in a line, cut into the sandstone long before anyone dug a well at Bir Tamrit, and "
    "Amina Tazi found them on her walk at first light. They show only while the sun is low and slants across the "
    "rock. On Thursday she will be up there from half past five in the morning, when the sun comes over the ridge, "
    "until half past seven, when it has climbed too high; it is her own idea, and what she hopes is that the whole "
    "settlement will come up and stand in front of them with her, before she writes to the antiquities office in "
    "the city and they are fenced off.",
    topic="giraffe engraving at Kef Rock", question="Have you heard about the giraffe engravings?",
    place="Kef Rock:overhang", window=("2026-06-11T05:30:00Z", "2026-06-11T07:30:00Z"))


def write_files(folder: Path = FOLDER) -> None:
    write(folder, NAME, SIZE, BUILDINGS, PEOPLE, EVENT, BARRIERS)


if __name__ == "__main__":
    write_files()
