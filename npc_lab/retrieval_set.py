"""A retrieval set of our own for judging embedders: memory lines of one NPC's town life (a harbour
town, written for this set, not the Ville's data) and questions an NPC's thinking asks of its
memories, each with the lines a person would judge relevant. Queries are worded apart from their
lines (a query that repeats its line's words would favour a bag of words).

Used by `npc-lab bench retrieval` (npc_lab/retrieval_bench.py): recall@10 and MRR per embedder.
"""

from __future__ import annotations

MEMORIES: dict[str, str] = {
    # the bakery
    "bake_early": "Mara was kneading dough in the bakery before sunrise",
    "bake_rye": "Mara sold the last loaf of rye bread to the fisherman Tomas",
    "bake_oven": "the bakery's brick oven cracked and smoke filled the shop",
    "bake_price": "Mara said flour costs twice what it did last spring",
    "bake_apprentice": "Mara is teaching young Pip how to braid sweet buns",
    # the harbour and fishing
    "fish_catch": "Tomas came back with a boat full of herring this morning",
    "fish_net": "Tomas is mending a torn net on the pier",
    "fish_storm": "the fishing boats stayed tied up because of the high waves",
    "fish_missing": "Jonas's boat has not returned since yesterday evening",
    "fish_found": "the coast watch found Jonas alive on the rocks near the lighthouse",
    "fish_sell": "Tomas is selling smoked eel at the harbour stall",
    # the weather
    "weather_storm": "a storm is coming from the west, the sky turned dark grey",
    "weather_rain": "it has rained for three days and the lane is all mud",
    "weather_sun": "the sun came out after a week of fog over the bay",
    "weather_snow": "the first snow of the year covered the rooftops",
    # the festival
    "fest_plan": "Isla is organising the lantern festival for the end of the month",
    "fest_ask": "Isla asked me to help hang paper lanterns in the square",
    "fest_music": "the fiddlers are rehearsing songs for the lantern festival",
    "fest_food": "Mara agreed to bake honey cakes for the festival stalls",
    "fest_date": "the festival will be on Saturday evening at the town square",
    # the mayor's election
    "vote_run": "Edwin announced that he will run for mayor this autumn",
    "vote_speech": "Edwin gave a speech promising to repair the old sea wall",
    "vote_rival": "Greta says Edwin cannot be trusted with the town's money",
    "vote_poster": "someone tore down Edwin's posters on the church door",
    "vote_greta": "Greta is also standing in the election and wants lower taxes",
    # illness and the healer
    "sick_cough": "old Hanne has a bad cough and a fever",
    "sick_herbs": "the healer brewed willow bark tea for Hanne",
    "sick_better": "Hanne is feeling better and walked to the well today",
    "sick_children": "several children at the school are sick with a rash",
    # the blacksmith
    "smith_horse": "Bram shod the miller's horse at the forge",
    "smith_tools": "Bram is forging new hoes and sickles for the harvest",
    "smith_burn": "Bram burned his hand on a hot iron bar",
    "smith_debt": "Bram owes the innkeeper three silver coins",
    # the tavern and inn
    "inn_fight": "two sailors got into a brawl at the Anchor tavern last night",
    "inn_stranger": "a stranger in a grey cloak took a room at the inn and asked about the lighthouse",
    "inn_ale": "the innkeeper complained that the new barrel of ale tastes sour",
    "inn_song": "everyone at the tavern sang along when Lotte played the accordion",
    # romance and family
    "love_letter": "I saw Pip slip a letter under Anya's door",
    "love_walk": "Anya and Pip walked together along the beach at dusk",
    "love_wedding": "Lotte and Bram are getting married in the spring",
    "love_ring": "Bram asked the jeweller to make a silver ring",
    "family_baby": "Greta's daughter gave birth to a baby boy",
    "family_argue": "Jonas and his father shouted at each other about selling the boat",
    # the school and the library
    "school_lesson": "the teacher taught the children their letters with chalk on slate",
    "school_roof": "the schoolhouse roof leaks when it rains",
    "lib_book": "I borrowed a book about the history of the lighthouse from the library",
    "lib_quiet": "the librarian asked the boys to stop running between the shelves",
    # the garden and the harvest
    "garden_beans": "I planted beans and cabbages in my garden",
    "garden_slugs": "slugs ate half of my lettuce overnight",
    "harvest_wheat": "the farmers started cutting the wheat in the east fields",
    "harvest_apples": "the apple trees behind the mill are heavy with fruit",
    "harvest_cider": "the miller is pressing apples to make cider",
    # theft and trouble
    "theft_chickens": "three of Hanne's chickens went missing from the coop",
    "theft_fox": "fox tracks were found in the mud beside the chicken coop",
    "theft_purse": "a purse was stolen from a stall at the market",
    "theft_guard": "the town guard is asking questions about the stolen purse",
    # the market
    "market_day": "the weekly market filled the square with carts and stalls",
    "market_cloth": "a trader from the city is selling bright blue cloth",
    "market_cheese": "I bought a wheel of goat cheese at the market",
    # the lighthouse
    "light_keeper": "the lighthouse keeper says the lamp needs new oil",
    "light_dark": "the lighthouse was dark last night and a ship nearly hit the rocks",
    "light_repair": "Edwin paid for the lighthouse lamp to be repaired",
    # fire
    "fire_barn": "the old barn by the mill caught fire in the night",
    "fire_bucket": "the neighbours formed a line passing buckets of water to the fire",
    "fire_cause": "people say a lantern was knocked over in the hay",
    # animals
    "dog_lost": "Anya's dog ran off into the woods and she is looking for it",
    "dog_back": "the dog came home muddy and hungry the next morning",
    "cat_kittens": "the innkeeper's cat had four kittens under the stairs",
    # art and music
    "art_paint": "Lotte is painting the harbour boats in watercolour",
    "art_sell": "a merchant bought two of Lotte's paintings",
    "music_choir": "the church choir is practising hymns on Thursday evenings",
    # routine
    "routine_sleep": "Mara is sleeping",
    "routine_walk": "I walked to the well to fetch water",
    "routine_breakfast": "I ate porridge with honey for breakfast",
    "routine_sweep": "Pip is sweeping the floor of the bakery",
    # work and money
    "money_rent": "my rent for the cottage is due at the end of the week",
    "money_wage": "the harbour master paid me for unloading the cargo ship",
    "money_loan": "Tomas wants to borrow money to buy a bigger boat",
    # the church
    "church_bell": "the church bell cracked and rings out of tune",
    "church_service": "the priest spoke about forgiveness at the morning service",
    # travel
    "travel_city": "Isla is leaving for the city next week to visit her sister",
    "travel_coach": "the mail coach arrived late because a wheel broke on the road",
}

QUERIES: list[tuple[str, tuple[str, ...]]] = [
    ("Who bakes bread in town?", ("bake_early", "bake_rye", "bake_apprentice", "fest_food", "routine_sweep")),
    ("What happened to the oven?", ("bake_oven",)),
    ("Is food getting more expensive?", ("bake_price",)),
    ("How is the fishing going?", ("fish_catch", "fish_storm", "fish_net", "fish_sell")),
    ("Is any sailor lost at sea?", ("fish_missing", "fish_found")),
    ("What is the weather like?", ("weather_storm", "weather_rain", "weather_sun", "weather_snow", "fish_storm")),
    ("What celebration is planned for this month?", ("fest_plan", "fest_ask", "fest_music", "fest_food", "fest_date")),
    ("When is the lantern festival?", ("fest_date", "fest_plan")),
    ("Who wants to become mayor?", ("vote_run", "vote_speech", "vote_greta")),
    ("What do people think of Edwin?", ("vote_rival", "vote_poster", "vote_speech", "light_repair", "vote_run")),
    ("Who is ill?", ("sick_cough", "sick_children", "sick_herbs")),
    ("How is Hanne's health?", ("sick_cough", "sick_herbs", "sick_better")),
    ("What is the blacksmith working on?", ("smith_horse", "smith_tools")),
    ("Was anyone injured?", ("smith_burn", "inn_fight", "fish_found")),
    ("Who owes money?", ("smith_debt", "money_loan", "money_rent")),
    ("Was there trouble at the tavern?", ("inn_fight",)),
    ("Has anyone suspicious come to town?", ("inn_stranger",)),
    ("Who is in love?", ("love_letter", "love_walk", "love_wedding", "love_ring")),
    ("Is anyone getting married?", ("love_wedding", "love_ring")),
    ("What news is there of families?", ("family_baby", "family_argue", "love_wedding")),
    ("What do the children learn at school?", ("school_lesson",)),
    ("What is growing in my vegetable patch?", ("garden_beans", "garden_slugs")),
    ("Is it harvest time?", ("harvest_wheat", "harvest_apples", "harvest_cider", "smith_tools")),
    ("Has anything been stolen?", ("theft_chickens", "theft_purse", "theft_guard")),
    ("What took the hens?", ("theft_chickens", "theft_fox")),
    ("What can I buy at the market?", ("market_day", "market_cloth", "market_cheese", "fish_sell")),
    ("Is the lighthouse working?", ("light_keeper", "light_dark", "light_repair")),
    ("Was there a fire?", ("fire_barn", "fire_bucket", "fire_cause")),
    ("Where is Anya's pet?", ("dog_lost", "dog_back")),
    ("Who makes art?", ("art_paint", "art_sell")),
    ("Where can I hear music?", ("fest_music", "inn_song", "music_choir")),
    ("Is anyone leaving town?", ("travel_city",)),
    ("What needs repairing in town?", ("bake_oven", "school_roof", "church_bell", "light_keeper", "vote_speech")),
]
