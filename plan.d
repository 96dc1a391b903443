plan.o: plan.c plan.h irqclass.h topology.h cpuset.h
plan.h:
irqclass.h:
topology.h:
cpuset.h:
