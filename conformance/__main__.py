import sys

from conformance.cli import main

if __name__ == "__main__":  # worker processes (conformance/isolation.py) import this module too
    sys.exit(main())
