"""``python -m xworkmate``: the same entry point as the ``xworkmate`` command."""

import sys

from xworkmate.entry import main

sys.exit(main())
