# Two buses with the same addresses, chosen by their pins like on the wall board.
from machine import I2C, Pin, SoftI2C

unwired = I2C(0)  # the port's default pins 18/19: nothing is connected there
empty = unwired.scan()
try:
    unwired.writeto(0x70, b"\x21")
except OSError as e:
    print("unwired", e.errno)
a = I2C(0, scl=Pin(22), sda=Pin(21))  # the same static object as on the ESP32, now on other pins
b = I2C(1, scl=Pin(33), sda=Pin(32))
print("scan", a.scan(), b.scan(), empty, a is unwired)
a.writeto(0x70, b"\x00\x11")
b.writeto(0x70, b"\x00\x22")
soft = SoftI2C(scl=Pin(33), sda=Pin(32))
soft.writeto(0x71, b"\x00\x33\x44")
print("softi2c", soft.scan())
