"""Shared pytest set-up."""

from hypothesis import settings

# CI machines have 2 cores shared with notebook kernels: judge properties, not speed.
settings.register_profile("labcalc", deadline=None, print_blob=True)
settings.load_profile("labcalc")
