topology.o: topology.c fileio.h pathnames.h source.h capture.h topology.h \
 cpuset.h
fileio.h:
pathnames.h:
source.h:
capture.h:
topology.h:
cpuset.h:
