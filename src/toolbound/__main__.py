from toolbound._cli import run

run()
