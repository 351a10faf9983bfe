"""Topic cards `memory/YYYY-MM-DD/<slug>.md`: the file format, its sections and provenance
fields (card), what a change may not do (rules), and the day page that indexes a day's cards
(day_page).
"""
