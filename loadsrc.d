loadsrc.o: loadsrc.c bpfload.h measure.h irqclass.h sample.h loadsrc.h \
 config.h cpuset.h estimate.h pathnames.h
bpfload.h:
measure.h:
irqclass.h:
sample.h:
loadsrc.h:
config.h:
cpuset.h:
estimate.h:
pathnames.h:
