cpuset.o: cpuset.c cpuset.h fileio.h
cpuset.h:
fileio.h:
