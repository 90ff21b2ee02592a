#include "ServeOptions.h"
