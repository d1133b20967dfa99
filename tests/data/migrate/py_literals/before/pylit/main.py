def run():
    pass

def gui():
    pass
