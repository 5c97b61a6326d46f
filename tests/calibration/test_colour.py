

def test_white_balance_ignores_patches_hidden_by_blocks() -> None:
    import numpy as np

    from calibration.colour import consistent_neutrals

    # seen from the far side: the -y band's black/grey/white patches are covered by yellow and
    # green plastic; the +y band's grey2/white2 pair is visible (figures from a rendered fixture)
    measured = {"black": [0.195, 0.133, 0.021], "grey": [0.02, 0.05, 0.007], "white": [0.028, 0.1, 0.018],
                "grey2": [0.184, 0.191, 0.175], "white2": [0.791, 0.823, 0.776]}
    kept = consistent_neutrals(measured)
    assert set(kept) == {"grey2", "white2"}
    # all visible and under warm light: every neutral patch agrees and is kept
    warm = {k: np.array([1.3, 1.0, 0.6]) * v for k, v in
            {"black": 0.05, "grey": 0.2, "white": 0.85, "grey2": 0.2, "white2": 0.85}.items()}
    assert set(consistent_neutrals(warm)) == set(warm)


def test_white_balance_rejects_patches_covered_by_one_colour() -> None:
    import numpy as np

    from calibration.colour import consistent_neutrals

    # two neighbouring patches covered by the same pink block agree with each other, but no neutral
    # surface under any lamp looks like that; the visible +y pair wins although it is only two
    pink = np.array([0.69, 0.14, 0.34])
    measured = {"grey": pink * 0.3, "white": pink, "black": pink * 0.8,
                "grey2": [0.184, 0.191, 0.175], "white2": [0.791, 0.823, 0.776]}
    assert set(consistent_neutrals(measured)) == {"grey2", "white2"}
    # warm 2700 K-like light is still neutral
    assert set(consistent_neutrals({"white": [0.9, 0.6, 0.25], "grey": [0.19, 0.127, 0.053]})) == {"white", "grey"}
