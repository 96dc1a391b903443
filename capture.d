capture.o: capture.c capture.h fileio.h
capture.h:
fileio.h:
