"""Entry point: ``python -m pallas_kernels.bench dot``."""

import sys

from pallas_kernels.bench.cli import main

sys.exit(main())
