device.o: device.c cpuset.h device.h irqclass.h sample.h fileio.h \
 pathnames.h source.h capture.h
cpuset.h:
device.h:
irqclass.h:
sample.h:
fileio.h:
pathnames.h:
source.h:
capture.h:
