"""Cauldwell: ten people strung along a flight of locks where a canal climbs a hill, in late autumn
(town D; who wrote it and from which brief: README.md here).

The canal runs west to east across the map and is crossed on foot only at the two locks' gates:
the Bottom Lock at the foot of the flight and the Top Lock at its head. The village side, north of
the water, has the inn, the laundry with its drying shed, the lock house and four homes; the
towpath side, south, has the boatyard, the apprentice's cabin, the winter moorings with a narrowboat
tied up on them, and (beyond the Top Lock) the coal wharf. The event: Netta Bramall, who runs the
laundry, opens her drying shed for an afternoon of indigo dyeing on the second day.

    .venv/bin/python -m npc_lab.towns.cauldwell   # writes npc_lab/towns/cauldwell/ again
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from npc_lab.towns.plan import Building, Event, Person, Room, write, write_scenario

NAME = "Cauldwell"
FOLDER = Path(__file__).with_suffix("")
SIZE = (110, 44)
BARRIERS = ((0, 19, 109, 21),)  # the canal, west to east; the Bottom Lock and the Top Lock cross it

BUILDINGS = [
    # The village side, north of the canal: homes up the hill, the inn, the laundry and the lock house.
    Building("Hale cottage", (2, 1), (Room("bedroom", ("bed", "wash stand"), 4),
                                      Room("kitchen", ("range", "dresser", "table"), 4)),
             residents=("Bryony Hale",)),
    Building("Oldroyd cottage", (18, 1), (Room("bedroom", ("bed", "walking boots"), 4),
                                          Room("parlour", ("armchair", "mantel clock", "shelf of timetables"), 5)),
             residents=("Sidney Oldroyd",)),
    Building("Bramall house", (34, 1), (Room("bedroom", ("bed", "chest of drawers"), 4),
                                        Room("kitchen", ("stove", "table", "ironing board"), 4)),
             residents=("Netta Bramall",)),
    Building("Lock House", (64, 1), (Room("Greta Pollard's bedroom", ("bed", "window on the flight"), 5),
                                     Room("Dominic Pollard's bedroom", ("bed", "guitar", "maps of the rivers"), 5),
                                     Room("kitchen", ("range", "table", "hook of windlasses", "lock ledger"), 5)),
             residents=("Greta Pollard", "Dominic Pollard")),
    Building("Paddle and Heron", (2, 9), (Room("taproom", ("bar counter", "beer pumps", "inglenook", "settles"), 7),
                                          Room("snug", ("hearth", "window seat"), 4))),
    Building("Bramall's Laundry", (34, 9), (Room("wash house", ("coppers", "mangle", "washing tubs", "counter"), 6),
                                            Room("drying shed", ("drying racks", "iron stove", "clothes lines",
                                                                 "folding table"), 7))),
    Building("Kettlewell house", (96, 9), (Room("bedroom", ("bed", "coal-black boots"), 4),
                                           Room("kitchen", ("stove", "table", "order book"), 4)),
             residents=("Amos Kettlewell",)),
    # The two crossings: the gates of the bottom and the top lock of the flight.
    Building("Bottom Lock", (8, 17), (Room("lockside", ("lower gates", "paddle gear", "footbridge"), 8),), depth=7,
             walled=False),
    Building("Top Lock", (86, 17), (Room("lockside", ("upper gates", "paddle gear", "footbridge", "lock cabin"), 8),),
             depth=7, walled=False),
    # The towpath side, south of the canal.
    Building("Towpath", (16, 22), (Room("towpath", ("mileposts", "bench", "hawthorn hedge", "flight markers"), 70),),
             depth=2, walled=False),
    Building("Fennell's Boatyard", (18, 27), (Room("boat shed", ("hull on trestles", "steam chest", "timber stack",
                                                                "workbench"), 8),
                                              Room("paint shop", ("paint pots", "signwriting easel", "brush jars"), 5)),
             door="north"),
    Building("Yard cabin", (36, 27), (Room("cabin", ("bunk", "paraffin heater", "kit bag"), 5),),
             residents=("Ada Quint",), door="north"),
    Building("Winter Moorings", (46, 26), (Room("moorings", ("mooring rings", "water point", "log pile"), 10),),
             walled=False),
    Building("Peewit", (46, 32), (Room("back cabin", ("cross bed", "brass rail"), 4),
                                  Room("saloon", ("solid-fuel stove", "folding table", "bookshelf"), 6)),
             residents=("Hugh Marchbank", "Ines Marchbank"), door="north"),
    Building("Fennell house", (18, 36), (Room("bedroom", ("bed", "photograph of a launch"), 4),
                                         Room("kitchen", ("range", "table"), 4)),
             residents=("Osric Fennell",), door="north"),
    Building("Coal Wharf", (96, 25), (Room("wharf", ("coal boat", "coal sacks", "log stack", "weighing scales"), 12),),
             walled=False),
]

PEOPLE = [
    Person("netta_bramall", "Netta Bramall", 52, ("capable", "inventive", "plain-spoken"),
           "Netta Bramall runs Bramall's Laundry on the village side of the Cauldwell flight: the wash house, "
           "where people leave their bundles at the counter, and behind it the drying shed, where the washing hangs "
           "round an iron stove that Sidney Oldroyd built for her out of an old locomotive firebox. She dries the "
           "inn's linen for Bryony Hale and has been friends with Greta Pollard, the lock-keeper, since they were "
           "girls. Ines Marchbank from the narrowboat Peewit often stays to talk by the stove. Amos Kettlewell "
           "brings her coal.",
           "wakes up at 6 am, keeps the laundry from 8 am to 5 pm, and goes to bed at 10 pm",
           "Netta Bramall is fighting the November damp: nothing dries on the lines outside any more, so half the "
           "settlement's sheets hang in her drying shed.",
           "Bramall house:bedroom", "Bramall's Laundry:wash house",
           ("Bramall house:kitchen", "Bramall's Laundry:drying shed", "Paddle and Heron:taproom", "Lock House:kitchen",
            "Bottom Lock:lockside", "Towpath:towpath")),
    Person("greta_pollard", "Greta Pollard", 58, ("steady", "exacting", "loyal"),
           "Greta Pollard is the lock-keeper of the Cauldwell flight, eight locks that lift the canal up the hill. "
           "She lives in the Lock House with her grown son Dominic Pollard, who works the lower locks for her and "
           "whom she hopes will keep the flight after her. She allots the winter moorings and is tired of hearing "
           "Hugh Marchbank and Amos Kettlewell quarrel over them. Netta Bramall has been her friend since school.",
           "wakes up at 6 am, works the locks from 8 am to 4 pm, and goes to bed at 9:30 pm",
           "Greta Pollard is checking the gates before the winter stoppage and counting the few boats still moving.",
           "Lock House:Greta Pollard's bedroom", "Top Lock:lockside",
           ("Lock House:kitchen", "Bottom Lock:lockside", "Towpath:towpath", "Winter Moorings:moorings",
            "Bramall's Laundry:wash house", "Bramall's Laundry:drying shed", "Paddle and Heron:taproom")),
    Person("dominic_pollard", "Dominic Pollard", 27, ("restless", "easy-going", "strong"),
           "Dominic Pollard works the bottom locks of the Cauldwell flight, clears the weed from the pounds and greases "
           "the paddle gear, under his mother Greta Pollard, the lock-keeper. He would rather be working on the big "
           "rivers and has not found a way to tell her. Some days he rides along with Amos Kettlewell on the coal boat; "
           "in the evenings he sits in the taproom of the Paddle and Heron, where Bryony Hale teases him.",
           "wakes up at 7 am, works the bottom locks from 8 am to 4 pm, spends the evening at the inn, and goes to bed "
           "at 11 pm",
           "Dominic Pollard is reading about the river pilots' exams and keeping the book under his bed.",
           "Lock House:Dominic Pollard's bedroom", "Bottom Lock:lockside",
           ("Lock House:kitchen", "Top Lock:lockside", "Towpath:towpath", "Paddle and Heron:taproom",
            "Coal Wharf:wharf", "Bramall's Laundry:wash house")),
    Person("osric_fennell", "Osric Fennell", 66, ("gruff", "meticulous", "fair"),
           "Osric Fennell builds and refits narrowboats in the boat shed of Fennell's Boatyard on the towpath side of "
           "the canal, as his father did. This autumn he took on an apprentice, Ada Quint, and lets her the cabin in "
           "the yard. Sidney Oldroyd is his oldest friend; they argue about steam and diesel over a pint. Ines "
           "Marchbank letters his boats in the paint shop.",
           "wakes up at 6:30 am, works in the boat shed from 8 am to 5 pm, and goes to bed at 9 pm",
           "Osric Fennell is replanking an old working boat and short of good oak.",
           "Fennell house:bedroom", "Fennell's Boatyard:boat shed",
           ("Fennell house:kitchen", "Fennell's Boatyard:paint shop", "Yard cabin:cabin", "Towpath:towpath",
            "Bottom Lock:lockside", "Paddle and Heron:taproom")),
    Person("ada_quint", "Ada Quint", 18, ("earnest", "quiet", "quick to learn"),
           "Ada Quint came to Cauldwell in September from the city to be apprenticed to Osric Fennell, the "
           "boatbuilder, and lives in the cabin in his yard. Osric Fennell is the only person in the settlement she "
           "knows; she has not yet been over the canal to the village side except to walk past on the lane.",
           "wakes up at 7 am, works in the boat shed from 8 am to 5 pm, and goes to bed at 10 pm",
           "Ada Quint is learning to steam and bend oak planks and misses her friends in the city.",
           "Yard cabin:cabin", "Fennell's Boatyard:boat shed",
           ("Fennell's Boatyard:paint shop", "Towpath:towpath")),
    Person("hugh_marchbank", "Hugh Marchbank", 61, ("stubborn", "sociable", "proud"),
           "Hugh Marchbank lives aboard the narrowboat Peewit with his wife Ines Marchbank, and every winter they moor "
           "her on the winter moorings at Cauldwell. For four winters he has quarrelled with Amos Kettlewell, who says "
           "the berth by the water point has always been the coal boat's. Hugh spends his days on the bank, splitting "
           "logs and tending the boat, and he likes a game of dominoes with Dominic Pollard at the inn.",
           "wakes up at 8 am, tends the boat and the log pile on the moorings from 9 am to 4 pm, and goes to bed at "
           "11 pm",
           "Hugh Marchbank has moved the Peewit's ropes twice this week to keep the coal boat from the berth.",
           "Peewit:back cabin", "Winter Moorings:moorings",
           ("Peewit:saloon", "Towpath:towpath", "Bottom Lock:lockside", "Paddle and Heron:taproom",
            "Bramall's Laundry:wash house")),
    Person("ines_marchbank", "Ines Marchbank", 59, ("warm", "patient", "artistic"),
           "Ines Marchbank lives aboard the narrowboat Peewit with her husband Hugh Marchbank, wintering on the "
           "moorings at Cauldwell. She paints boat names and roses in the paint shop at Fennell's Boatyard for Osric "
           "Fennell. She wishes Hugh would let the berth go to Amos Kettlewell and have some peace. She takes the "
           "Peewit's washing up to Netta Bramall's laundry and stays to talk by the stove.",
           "wakes up at 7:30 am, paints in the paint shop from 9 am to 3 pm, and goes to bed at 10:30 pm",
           "Ines Marchbank is lettering the name of a new boat in gold leaf and worrying about Hugh's temper.",
           "Peewit:back cabin", "Fennell's Boatyard:paint shop",
           ("Peewit:saloon", "Winter Moorings:moorings", "Towpath:towpath", "Bottom Lock:lockside",
            "Bramall's Laundry:wash house", "Bramall's Laundry:drying shed", "Paddle and Heron:taproom")),
    Person("bryony_hale", "Bryony Hale", 44, ("cheerful", "nosy", "hard-working"),
           "Bryony Hale keeps the Paddle and Heron, the canal-side inn by the Bottom Lock, and lives in Hale cottage up "
           "the lane. Netta Bramall dries the inn's linen; Amos Kettlewell brings the coal and logs for its fires. "
           "Sidney Oldroyd has his half of bitter at her bar every noon, and she teases Dominic Pollard about the girl "
           "he has not got.",
           "wakes up at 8 am, keeps the inn from 11 am to 11 pm, and goes to bed at midnight",
           "Bryony Hale is wondering how to keep the inn full now the summer boats have gone.",
           "Hale cottage:bedroom", "Paddle and Heron:taproom",
           ("Hale cottage:kitchen", "Paddle and Heron:snug", "Bramall's Laundry:wash house",
            "Bramall's Laundry:drying shed", "Bottom Lock:lockside", "Towpath:towpath")),
    Person("sidney_oldroyd", "Sidney Oldroyd", 77, ("methodical", "genial", "talkative"),
           "Sidney Oldroyd is a retired railway engineer who spent forty years on locomotives and now walks the "
           "whole length of the Cauldwell towpath every morning, from the Bottom Lock to the Top Lock and back, "
           "whatever the weather. He is a widower, lives in Oldroyd cottage, and is Osric Fennell's oldest friend. "
           "He built the stove in Netta Bramall's drying shed and calls in to see that it draws well. He takes his "
           "half of bitter at Bryony Hale's bar at noon.",
           "wakes up at 5:30 am, walks the towpath from 7 am to 11 am, spends the afternoon in his parlour, and goes "
           "to bed at 9 pm",
           "Sidney Oldroyd is counting the herons on his walks and writing the numbers in a notebook.",
           "Oldroyd cottage:bedroom", "Towpath:towpath",
           ("Oldroyd cottage:parlour", "Bottom Lock:lockside", "Top Lock:lockside", "Paddle and Heron:taproom",
            "Bramall's Laundry:drying shed", "Fennell's Boatyard:boat shed", "Winter Moorings:moorings")),
    Person("amos_kettlewell", "Amos Kettlewell", 48, ("blunt", "hard-working", "touchy"),
           "Amos Kettlewell delivers coal and logs by boat, the Ember, to the villages along the canal above the Top "
           "Lock, and is away along the water most of the day. He supplies the Paddle and Heron, the laundry and the "
           "Lock House. He has quarrelled with Hugh Marchbank for four winters over the berth by the water point on "
           "the winter moorings. Dominic Pollard sometimes rides along with him.",
           "wakes up at 5 am, loads the Ember at the coal wharf and is away delivering along the canal from 6 am to "
           "5 pm, and goes to bed at 9 pm",
           "Amos Kettlewell has more orders than he can carry now the cold has come.",
           "Kettlewell house:bedroom", "Coal Wharf:wharf",
           ("Kettlewell house:kitchen", "Top Lock:lockside", "Towpath:towpath", "Winter Moorings:moorings",
            "Paddle and Heron:taproom", "Bramall's Laundry:wash house")),
]

EVENT = Event(
    file="indigo_dyeing", name="Indigo dyeing",
    description="Netta Bramall, who runs the laundry on the village side of the flight, decides of her own accord "
    "to open her drying shed for an afternoon of indigo dyeing: anyone may bring something pale to dip in the vat "
    "she has kept going. Nobody else is told: does word get over the lock gates to the boatyard and the narrowboat "
    "on the towpath side, and to the coal boat that is away all day, and who comes?",
    start="2026-11-18T07:00:00Z", host="netta_bramall",
    text="Tomorrow, between two and four in the afternoon, there will be indigo dyeing in the drying shed at "
    "Bramall's Laundry, of Netta Bramall's own devising: she has kept a vat of indigo going for a fortnight, and "
    "anyone who brings something pale, a shirt or a pillowcase or a scarf, may dip it and watch it come out green "
    "and turn blue in the air. She will tell whoever she runs into.",
    topic="indigo dyeing at Bramall's Laundry", question="Have you heard about an afternoon of indigo dyeing?",
    place="Bramall's Laundry:drying shed", window=("2026-11-19T14:00:00Z", "2026-11-19T16:00:00Z"))


# The same event whispered to the host, as the paper's inner voice speaks (matrix case `indigo_you`).
SAID_TO_HER = replace(
    EVENT, file="indigo_dyeing_said_to_her", name="Indigo dyeing, said to her",
    description="Cauldwell's indigo dyeing with its whisper said to the host, as the paper's inner voice speaks "
    "(\"Tomorrow, ..., you will hold indigo dyeing ...\"), not of her: the same event, town and measure as "
    "indigo_dyeing.json.",
    text="Tomorrow, between two and four in the afternoon, you will hold indigo dyeing in the drying shed at "
    "Bramall's Laundry, of your own devising: you have kept a vat of indigo going for a fortnight, and anyone who "
    "brings something pale, a shirt or a pillowcase or a scarf, may dip it and watch it come out green and turn "
    "blue in the air. You will tell whoever you run into.")


def write_files(folder: Path = FOLDER) -> None:
    write(folder, NAME, SIZE, BUILDINGS, PEOPLE, EVENT, BARRIERS)
    write_scenario(folder, NAME, SAID_TO_HER)


if __name__ == "__main__":
    write_files()
