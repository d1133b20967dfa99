raise RuntimeError("this project never builds")
