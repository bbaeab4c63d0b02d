"""``python -m gradcut.claims.sweeps [NAME ...]``: each sweep as torch measures it."""

import sys

from gradcut.claims.sweeps import main

sys.exit(main())
