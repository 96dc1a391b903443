policy.o: policy.c policy.h config.h cpuset.h irqclass.h device.h \
 sample.h topology.h
policy.h:
config.h:
cpuset.h:
irqclass.h:
device.h:
sample.h:
topology.h:
