"""The Cython core (engine.pyx + _rules.pxi): state struct, legal moves, apply."""
