namespace Ilmap.Corpus.Features
{
    public static class LongLine
    {
        // Many statements on one line: columns well above 255 (and above 1000).
        public static int Many(int x)
        {
            int v0 = x; int v1 = v0 * 3 + 1; int v2 = v1 * 3 + 2; int v3 = v2 * 3 + 3; int v4 = v3 * 3 + 4; int v5 = v4 * 3 + 5; int v6 = v5 * 3 + 6; int v7 = v6 * 3 + 7; int v8 = v7 * 3 + 8; int v9 = v8 * 3 + 9; int v10 = v9 * 3 + 10; int v11 = v10 * 3 + 11; int v12 = v11 * 3 + 12; int v13 = v12 * 3 + 13; int v14 = v13 * 3 + 14; int v15 = v14 * 3 + 15; int v16 = v15 * 3 + 16; int v17 = v16 * 3 + 17; int v18 = v17 * 3 + 18; int v19 = v18 * 3 + 19; int v20 = v19 * 3 + 20; int v21 = v20 * 3 + 21; int v22 = v21 * 3 + 22; int v23 = v22 * 3 + 23; int v24 = v23 * 3 + 24; int v25 = v24 * 3 + 25; int v26 = v25 * 3 + 26; int v27 = v26 * 3 + 27; int v28 = v27 * 3 + 28; int v29 = v28 * 3 + 29; int v30 = v29 * 3 + 30; int v31 = v30 * 3 + 31; int v32 = v31 * 3 + 32; int v33 = v32 * 3 + 33; int v34 = v33 * 3 + 34; int v35 = v34 * 3 + 35; int v36 = v35 * 3 + 36; int v37 = v36 * 3 + 37; int v38 = v37 * 3 + 38; int v39 = v38 * 3 + 39; int v40 = v39 * 3 + 40; int v41 = v40 * 3 + 41; int v42 = v41 * 3 + 42; int v43 = v42 * 3 + 43; int v44 = v43 * 3 + 44; int v45 = v44 * 3 + 45; int v46 = v45 * 3 + 46; int v47 = v46 * 3 + 47; int v48 = v47 * 3 + 48; int v49 = v48 * 3 + 49; int v50 = v49 * 3 + 50; int v51 = v50 * 3 + 51; int v52 = v51 * 3 + 52; int v53 = v52 * 3 + 53; int v54 = v53 * 3 + 54; int v55 = v54 * 3 + 55; int v56 = v55 * 3 + 56; int v57 = v56 * 3 + 57; int v58 = v57 * 3 + 58; int v59 = v58 * 3 + 59; int v60 = v59 * 3 + 60; return v60;
        }
    }
}
