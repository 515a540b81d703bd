#include "tracesql/partitions.h"
