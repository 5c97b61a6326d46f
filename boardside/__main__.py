import sys

from boardside.cli import main

sys.exit(main())
