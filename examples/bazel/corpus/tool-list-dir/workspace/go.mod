module demo
