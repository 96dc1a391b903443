irqtune.o: irqtune.c apply.h capture.h compat.h cpuset.h config.h \
 irqclass.h costs.h estimate.h sample.h measure.h device.h devfit.h \
 fileio.h json.h report.h loadsrc.h lock.h log.h metrics.h pathnames.h \
 plan.h topology.h policy.h replay.h source.h state.h
apply.h:
capture.h:
compat.h:
cpuset.h:
config.h:
irqclass.h:
costs.h:
estimate.h:
sample.h:
measure.h:
device.h:
devfit.h:
fileio.h:
json.h:
report.h:
loadsrc.h:
lock.h:
log.h:
metrics.h:
pathnames.h:
plan.h:
topology.h:
policy.h:
replay.h:
source.h:
state.h:
