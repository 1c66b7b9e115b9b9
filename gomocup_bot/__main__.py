"""`python -m gomocup_bot`: same as the `gomocup-bot` console script."""
import sys

from gomocup_bot.cli import main

sys.exit(main())
