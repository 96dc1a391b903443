tests/plan_ref.o: tests/plan_ref.c plan.h irqclass.h topology.h cpuset.h \
 tests/plan_ref.h
plan.h:
irqclass.h:
topology.h:
cpuset.h:
tests/plan_ref.h:
