"""Hypothesis profiles.

The default profile is derandomized, so the suite (and CI) runs the same examples every
time and a red run is always reproducible. `HYPOTHESIS_PROFILE=explore python -m pytest`
searches fresh random examples on every run; add any failure it finds as a pinned
regression test.
"""
import os

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
