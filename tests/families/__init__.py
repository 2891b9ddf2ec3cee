"""Op behaviour tests, one file per family: test_<family>.py, named as the module
backend/reference/<family>.py (tests/README.md)."""
