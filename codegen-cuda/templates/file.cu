{% include "header.cu" %}
{% include "prelude.cu" %}
{% include "kernel.cu" %}
{% include "launch.cu" %}
