"""Auto Resource: files under `<working_dir>/resource/` become source-linked topic cards
(cards): which files may be read (paths), their text (extract, pdf), what the model says of one
(summary, prompts/), files put there from elsewhere (place), and the runtime's watcher (watch).
"""
