"""`python -m astjax ...`: the same command line as the `astjax` console script."""
import sys

from .cli import main

sys.exit(main())
