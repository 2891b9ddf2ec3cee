"""Op behaviour tests, one file per family: test_<family>.py, named as backend/reference/<family>.py (tests/README.md)."""
