"""``python -m xworkmate``: the same entry point as the ``xworkmate`` command.

``--net-bridge`` first (SBX-4): the frozen app's bridge mode, reached here by the same code path.
"""

import sys

from xworkmate.agents.net_bridge import run_if_asked

run_if_asked(sys.argv)

from xworkmate.entry import main  # noqa: E402 - after the bridge, which needs none of it

sys.exit(main())
