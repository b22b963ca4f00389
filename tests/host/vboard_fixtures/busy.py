# Never waits: virtual time cannot pass, the host must report a timeout.
print("spinning")
n = 0
while True:
    n += 1
