class Basic:
    pass
