# Echoes console lines read with asyncio from sys.stdin.
import asyncio
import sys


async def main():
    reader = asyncio.StreamReader(sys.stdin)
    while True:
        line = await reader.readline()
        print("got", line.decode().strip())


asyncio.run(main())
