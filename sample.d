sample.o: sample.c cpuset.h pathnames.h sample.h irqclass.h source.h \
 capture.h
cpuset.h:
pathnames.h:
sample.h:
irqclass.h:
source.h:
capture.h:
