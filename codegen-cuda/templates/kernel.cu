{%- if !device_fns.is_empty() %}

// ---- device functions of the source, as written (called by `call`) ----------------------------
{%- for f in device_fns %}
// source line {{ f.0 }}
{{ f.1 }}
{%- endfor %}
{%- endif %}
// ---- kernel ------------------------------------------------------------------------------------
{%- if !template_params.is_empty() %}
template <{{ template_params }}>
{%- endif %}
__global__ void {{ launch_bounds }} {{ name }}(
{%- for p in params %}
    {{ p }}{% if !loop.last %},{% endif %}
{%- endfor %}) {
{%- for c in constants %}
  {{ c.0 }} int {{ c.1 }} = {{ c.2 }};
{%- endfor %}
{%- if uses_smem %}
  unsigned char *tsl_smem = tsl_smem_base<{{ smem_align }}>();
{%- endif %}
{%- for l in body %}
  {{ l }}
{%- endfor %}
}
