
// ---- launch (what the tessel runtime does for an instance) ------------------------------------
// grid  = ({{ grid.0 }}, {{ grid.1 }}, {{ grid.2 }})
// block = ({{ block }}, 1, 1)
// dynamic shared memory = {{ smem }} bytes
{%- for a in args %}
// arg {{ loop.index0 }}: {{ a }}
{%- endfor %}
{%- for r in requires %}
// launch check: {{ r }}
{%- endfor %}
{%- for f in fills %}
// before each launch: {{ f }}
{%- endfor %}
{%- for i in instances %}
template __global__ void {{ i }};
{%- endfor %}
