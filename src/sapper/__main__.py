from sapper.cli import main

raise SystemExit(main())
