lock.o: lock.c lock.h
lock.h:
