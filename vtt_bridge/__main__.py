"""`python -m vtt_bridge`."""

import sys

from vtt_bridge.cli.main import main

sys.exit(main())
