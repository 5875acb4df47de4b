def greet():
    return 'hi'

print(greet())
