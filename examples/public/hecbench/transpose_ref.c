/* SPDX-License-Identifier: MIT */
/* transpose_ref.c: the truth for HeCBench's transposes: idata is h rows of w elements, odata
 * w rows of h, odata[x][y] = idata[y][x]. */
void transpose_ref(float *odata, const float *idata, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            odata[(long)x * h + y] = idata[(long)y * w + x];
}
