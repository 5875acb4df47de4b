def hello():
    return 'hi'

print(hello())
