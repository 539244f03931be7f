"""``python -m benchsmith.cli``: the ``benchsmith`` command."""

import sys

from benchsmith.cli import main

sys.exit(main())
