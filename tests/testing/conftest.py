"""The equivalence suites' profiles are in ``equiv_profiles.py``; the long
profile (tests marked ``long``) is selected in ``tests/conftest.py``."""
