source.o: source.c fileio.h source.h capture.h
fileio.h:
source.h:
capture.h:
