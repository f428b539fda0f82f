"""`python -m vtt_bridge`."""

import sys

from vtt_bridge.cli import main

sys.exit(main())
